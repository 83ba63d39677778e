/**
 * The edits that bring drifted fields of one object into the files that declare it, touching
 * nothing else: a UDF's code replaces its `.py` file; a YAML field replaces the characters of its
 * value (comments, other keys, `${var...}` references elsewhere stay byte for byte), is appended
 * when the key is absent, or its line is removed when the platform holds the default. A value the
 * repository writes as a `${var...}` / `${env...}` reference is never flattened: that field is
 * refused with the file, line and reference. Pure.
 */
import { isMap, isScalar, stringify, type Pair, type Scalar } from "yaml";
import { parseBoundedYaml } from "../../repository/yaml-parse";
import type { DesiredKind, SourceLocation } from "../../model/desired";
import type { RepoFile } from "./draft";
import { keepPlace } from "./keep-fields";
import { literal } from "./yaml-text";

/** One drifted field and the platform's value of it. */
export interface KeepChange {
  field: string;
  platform: unknown;
}

export interface KeepObject {
  address: string;
  kind: DesiredKind;
  /** Where the object is declared (the `.py` file of a UDF). */
  source: SourceLocation;
  changes: KeepChange[];
}

export type KeepEdits = { ok: true; files: RepoFile[] } | { ok: false; problems: string[] };

/** A `${var.NAME}` / `${env.NAME}` reference in a YAML string (`$${` is a literal and does not count). */
const REFERENCE = /(?<!\$)\$\{((?:var|env)\.[A-Za-z_][A-Za-z0-9_]*)\}/;

/** The YAML file holding the settings of `o`: `<slug>.yaml` beside a UDF's `.py`, else the declaring file. */
const yamlFileOf = (o: KeepObject) =>
  o.kind === "Udf" ? o.source.file.replace(/\.(py|md|json)$/, ".yaml") : o.source.file;

/**
 * The new texts of the files, given their current `texts` (undefined: the file does not exist).
 * All or nothing: one field that cannot be written refuses the whole keep.
 */
export function keepEdits(objects: readonly KeepObject[], texts: ReadonlyMap<string, string | undefined>): KeepEdits {
  const current = new Map(texts);
  const changed = new Set<string>();
  const problems: string[] = [];
  for (const o of objects) {
    for (const c of o.changes) {
      const place = keepPlace(o.kind, c.field);
      if (!place) {
        problems.push(
          `${o.address}: svc-iac import --keep does not write ${c.field} back; edit ${o.source.file} by hand`,
        );
        continue;
      }
      const file = place.in === "code" ? o.source.file : yamlFileOf(o);
      const before = current.get(file);
      const r =
        place.in === "code"
          ? { text: String(c.platform ?? "") }
          : setTopLevelKey(file, before, place.key, c.platform, place.default);
      if ("problem" in r) {
        problems.push(
          `${r.problem} Restore the repository's version instead (svc-iac apply --only ${o.address}), or edit the file by hand.`,
        );
        continue;
      }
      if (r.text !== before) {
        current.set(file, r.text);
        changed.add(file);
      }
    }
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, files: [...changed].sort().map((path) => ({ path, text: current.get(path)! })) };
}

/**
 * `value` as the text that follows `key:` in a top-level mapping: ` "text"`, or a block scalar
 * (`|` and its lines indented under the key) for a multi-line string. Written as the entry of a
 * mapping by the `yaml` library, so indentation and quoting are its own.
 */
function valueText(key: string, value: unknown): string {
  const entry = stringify({ [key]: literal(value) }, { lineWidth: 0, minContentWidth: 0, indent: 2 });
  return entry.slice(entry.indexOf(":") + 1).replace(/\n$/, "");
}

const isDefault = (value: unknown, dflt: unknown) =>
  value === undefined || value === null || (dflt !== undefined && value === dflt);

/** Sets top-level `key` of the YAML `text` to `value`, changing only that key's characters. */
export function setTopLevelKey(
  file: string,
  text: string | undefined,
  key: string,
  value: unknown,
  dflt?: unknown,
): { text: string } | { problem: string } {
  // Made only when written: a value the platform cleared has no text.
  const line = () => `${key}:${valueText(key, value)}\n`;
  if (text === undefined) return { text: isDefault(value, dflt) ? "" : line() };
  const parsed = parseBoundedYaml(text);
  const at = (offset: number) => {
    const p = parsed.lines.linePos(offset);
    return `${file}:${p.line}:${p.col}`;
  };
  if (!parsed.ok) return { problem: `${at(parsed.offset)}: ${parsed.message}, so ${key} cannot be set in place.` };
  const top = parsed.doc.contents;
  const appended = () => ({
    text: isDefault(value, dflt) ? text : `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${line()}`,
  });
  if (top === null || (isScalar(top) && (top.value === null || top.value === undefined))) return appended();
  if (!isMap(top))
    return {
      problem: `${at(top.range?.[0] ?? 0)}: found a ${isScalar(top) ? "scalar" : "list"} at the top of the file, expected a mapping, so ${key} cannot be set in place.`,
    };
  const pair = (top.items as Pair[]).find((p) => isScalar(p.key) && p.key.value === key);
  if (!pair) {
    if (!top.flow) return appended();
    if (top.items.length || isDefault(value, dflt))
      return isDefault(value, dflt)
        ? { text }
        : { problem: `${at(top.range![0])}: the file is one flow mapping ({…}), so ${key} cannot be added in place.` };
    // An empty `{}` (what import writes for a file of defaults) becomes the one key.
    return { text: splice(text, top.range![0], top.range![1], line().replace(/\n$/, "")) };
  }
  const node = pair.value as Scalar | null;
  const keyStart = (pair.key as Scalar).range![0];
  if (!isScalar(node) || !node.range)
    return { problem: `${at(keyStart)}: ${key} is not a single value, so it cannot be set in place.` };
  const ref = typeof node.value === "string" ? REFERENCE.exec(node.value) : null;
  if (ref) {
    return {
      problem:
        `${at(node.range[0])}: ${key} is written with \${${ref[1]}}, and keeping the platform's value would replace the reference with this target's literal value ` +
        `(targets that set ${ref[1].replace(/^(var|env)\./, "")} differently would lose theirs).`,
    };
  }
  if (top.flow)
    return { problem: `${at(keyStart)}: the file is one flow mapping ({…}), so ${key} cannot be set in place.` };
  if (value === undefined || value === null) return { text: removeLines(text, keyStart, node.range[1]) };
  // From the end of `key:` to the end of the old value, so a block scalar's indicator and lines go too.
  const from = (pair.key as Scalar).range![1];
  const colon = text.indexOf(":", from);
  const old = text.slice(colon + 1, node.range[1]);
  const replacement = valueText(key, value);
  return {
    text: splice(
      text,
      colon + 1,
      node.range[1],
      old.endsWith("\n") && !replacement.endsWith("\n") ? `${replacement}\n` : replacement,
    ),
  };
}

const splice = (text: string, from: number, to: number, insert: string) =>
  `${text.slice(0, from)}${insert}${text.slice(to)}`;

/** Removes the whole lines from the one holding `from` to the one holding the character before `to`. */
function removeLines(text: string, from: number, to: number): string {
  const start = text.lastIndexOf("\n", from - 1) + 1;
  const nl = text.indexOf("\n", Math.max(to - 1, from));
  return splice(text, start, nl < 0 ? text.length : nl + 1, "");
}
