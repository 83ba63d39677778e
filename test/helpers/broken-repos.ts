/**
 * Broken repositories for property-based tests: a fixture repository held in memory, and
 * fast-check arbitraries for the mutation classes of issue 32 (byte flips, truncations, values of
 * another type, deleted, duplicated and misspelled keys, anchors and aliases, deep nesting, values
 * JSON cannot carry, files removed, emptied or renamed).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import fc from "fast-check";

/** A repository as relative path → bytes. */
export type RepoFiles = Map<string, Buffer>;

/** Fixture repositories that validate, with the environment each needs. */
export const BASES = {
  "valid-full": { MAPBOX_TOKEN: "mapbox-secret-value-7f3a9c", LISTINGS_PASSCODE: "passcode-secret-4b2e81" },
  "shared-deploy": {},
  "udf-tests": { SMOKE_KEY: "smoke-secret-value-5d1e" },
} as const satisfies Record<string, Record<string, string>>;
export type BaseName = keyof typeof BASES;

/** `test/fixtures/<name>` read into memory. */
export function readFixture(name: BaseName): RepoFiles {
  const root = resolve(__dirname, "../fixtures", name);
  const files: RepoFiles = new Map();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else files.set(relative(root, path).split("\\").join("/"), readFileSync(path));
    }
  };
  walk(root);
  return files;
}

/** Writes `files` to a fresh temporary folder and returns it. */
export function writeRepo(files: RepoFiles): string {
  const dir = join(mkdtempSync(join(tmpdir(), "svc-broken-")), "repo");
  for (const [path, bytes] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), bytes);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A mutation, as data (so fast-check prints a failing case readably). `pick` chooses among candidates by remainder. */
export type Mutation =
  | { kind: "flip"; pick: number; at: number; bit: number }
  | { kind: "truncate"; pick: number; at: number }
  | { kind: "retype"; pick: number; line: number; value: string }
  | { kind: "delete-key" | "duplicate-key" | "misspell-key"; pick: number; line: number }
  | { kind: "alias"; pick: number; line: number; shape: AliasShape; levels: number }
  | { kind: "nest"; pick: number; line: number; style: "flow" | "block"; levels: number }
  | { kind: "unsendable"; pick: number; line: number; value: string }
  | { kind: "remove" | "empty"; pick: number }
  | { kind: "rename"; pick: number; to: string };

type AliasShape = "bomb" | "self" | "unknown" | "shared";

const OTHER_TYPES = [
  "[1, 2]",
  "{a: 1}",
  "42",
  "-1",
  "0.5",
  "true",
  '""',
  "null",
  '"text"',
  "[]",
  "{}",
  "x y z",
  "${var.nowhere}",
  "${env.NOWHERE}",
];
const UNSENDABLE = [
  ".nan",
  ".NaN",
  ".inf",
  "-.inf",
  "1e400",
  "-1e999",
  "12345678901234567890",
  '"\\ud800"',
  "!!binary aGk=",
  "!!timestamp 2001-12-14",
  "!!set {a}",
  "!!omap [a: 1]",
];
const RENAMES = ["renamed", "x", "UPPER", "with space", "dot.ted", "-dash", "ünïcode"];

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("flip" as const), pick: fc.nat(), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant("truncate" as const), pick: fc.nat(), at: fc.nat() }),
  fc.record({
    kind: fc.constant("retype" as const),
    pick: fc.nat(),
    line: fc.nat(),
    value: fc.constantFrom(...OTHER_TYPES),
  }),
  fc.record({
    kind: fc.constantFrom("delete-key" as const, "duplicate-key" as const, "misspell-key" as const),
    pick: fc.nat(),
    line: fc.nat(),
  }),
  fc.record({
    kind: fc.constant("alias" as const),
    pick: fc.nat(),
    line: fc.nat(),
    shape: fc.constantFrom<AliasShape>("bomb", "self", "unknown", "shared"),
    levels: fc.integer({ min: 1, max: 12 }),
  }),
  fc.record({
    kind: fc.constant("nest" as const),
    pick: fc.nat(),
    line: fc.nat(),
    style: fc.constantFrom("flow" as const, "block" as const),
    levels: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 120, max: 12_000 })),
  }),
  fc.record({
    kind: fc.constant("unsendable" as const),
    pick: fc.nat(),
    line: fc.nat(),
    value: fc.constantFrom(...UNSENDABLE),
  }),
  fc.record({ kind: fc.constantFrom("remove" as const, "empty" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("rename" as const), pick: fc.nat(), to: fc.constantFrom(...RENAMES) }),
);

/** One case: a fixture and one to three mutations applied in turn. */
export const brokenRepoArb = fc.record({
  base: fc.constantFrom<BaseName>(...(Object.keys(BASES) as BaseName[])),
  mutations: fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
});

const isYaml = (path: string) => path.endsWith(".yaml");

/** `files` with `m` applied (a new map; `files` is not changed). */
export function mutate(files: RepoFiles, m: Mutation): RepoFiles {
  const out = new Map(files);
  const paths = [...out.keys()].sort();
  const yamls = paths.filter(isYaml);
  const choose = (from: string[]) => (from.length ? from[m.pick % from.length] : undefined);
  switch (m.kind) {
    case "flip": {
      const path = choose(paths);
      const bytes = path ? out.get(path)! : undefined;
      if (!path || !bytes?.length) return out;
      const copy = Buffer.from(bytes);
      copy[m.at % copy.length] ^= 1 << m.bit;
      out.set(path, copy);
      return out;
    }
    case "truncate": {
      const path = choose(paths);
      if (!path) return out;
      const bytes = out.get(path)!;
      out.set(path, bytes.subarray(0, bytes.length ? m.at % bytes.length : 0));
      return out;
    }
    case "remove":
    case "empty": {
      const path = choose(paths);
      if (!path) return out;
      if (m.kind === "remove") out.delete(path);
      else out.set(path, Buffer.alloc(0));
      return out;
    }
    case "rename": {
      const path = choose(paths);
      if (!path) return out;
      const bytes = out.get(path)!;
      out.delete(path);
      const slash = path.lastIndexOf("/");
      const dot = path.lastIndexOf(".");
      const ext = dot > slash ? path.slice(dot) : "";
      // Half the time the extension changes too (.yaml → .yml, .py → .txt).
      const newExt = m.to.length % 2 ? ext : ext === ".yaml" ? ".yml" : ".txt";
      out.set(`${path.slice(0, slash + 1)}${m.to}${newExt}`, bytes);
      return out;
    }
    default: {
      const path = choose(yamls);
      if (!path) return out;
      out.set(path, Buffer.from(editYaml(out.get(path)!.toString("utf8"), m)));
      return out;
    }
  }
}

const KEY_LINE = /^(\s*(?:- )?)([^\s#:][^:#]*?):(\s.*|)$/;

/** A line-level edit of one `key: value` line of a YAML text. */
function editYaml(text: string, m: Extract<Mutation, { line: number }>): string {
  const lines = text.split("\n");
  const keyLines = lines.flatMap((l, i) => (KEY_LINE.test(l) ? [i] : []));
  if (!keyLines.length) return text;
  const i = keyLines[m.line % keyLines.length]!;
  const [, indent, key] = KEY_LINE.exec(lines[i]!)!;
  const setValue = (value: string) => (lines[i] = `${indent}${key}: ${value}`);
  switch (m.kind) {
    case "retype":
    case "unsendable":
      setValue(m.value);
      break;
    case "delete-key":
      lines.splice(i, 1);
      break;
    case "duplicate-key":
      lines.splice(i, 0, lines[i]!);
      break;
    case "misspell-key": {
      const k = key!;
      const misspelt = k.length > 1 ? `${k.slice(0, -2)}${k.slice(-1)}${k.slice(-2, -1)}` : `${k}${k}`;
      lines[i] = `${indent}${misspelt}:${lines[i]!.slice(indent!.length + k.length + 1)}`;
      break;
    }
    case "alias":
      setValue(aliasValue(m.shape, m.levels));
      break;
    case "nest":
      setValue(
        m.style === "flow"
          ? `${"[".repeat(m.levels)}1${"]".repeat(m.levels)}`
          : `\n${" ".repeat(indent!.length + 2)}${"- ".repeat(m.levels)}1`,
      );
      break;
  }
  return lines.join("\n");
}

/** A value written on one line (flow style) that uses anchors and aliases. */
function aliasValue(shape: AliasShape, levels: number): string {
  switch (shape) {
    case "bomb": {
      const parts = [`l0: &l0 [${Array(10).fill("x").join(", ")}]`];
      for (let i = 1; i <= levels; i++)
        parts.push(
          `l${i}: &l${i} [${Array(10)
            .fill(`*l${i - 1}`)
            .join(", ")}]`,
        );
      return `{${parts.join(", ")}}`;
    }
    case "self":
      return "&self {again: [*self]}";
    case "unknown":
      return "*nowhere";
    case "shared":
      return `{a: &shared {n: ${levels}}, b: *shared}`;
  }
}
