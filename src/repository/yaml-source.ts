/**
 * Reads one YAML file of the repository with positions: every node can be turned into
 * `file:line:column`. The file is parsed within bounds ({@link parseBoundedYaml}); syntax errors and
 * refused files become load errors; duplicate keys are left to the readers, which report them with
 * both positions.
 */
import type { RepositoryJail } from "./jail";
import { isAlias, type Alias, type Document, type LineCounter, type Node } from "yaml";
import type { SourceLocation } from "../model/desired";
import type { Diagnostics } from "./diagnostics";
import { readText } from "./repo-files";
import { parseBoundedYaml } from "./yaml-parse";

export interface SourceDoc {
  /** Relative to the repository root, `/` separators. */
  file: string;
  doc: Document.Parsed;
  lines: LineCounter;
  /** Every alias of the document tied to the value it repeats, resolved once when the file was parsed. */
  aliases: ReadonlyMap<Alias, Node>;
}

/** The location of a node (its first character), or 1:1 when there is no node. */
export function locate(src: SourceDoc, node: Node | null | undefined, path: string): SourceLocation {
  const offset = node?.range?.[0];
  if (offset === undefined) return { file: src.file, line: 1, column: 1, path };
  const { line, col } = src.lines.linePos(offset);
  return { file: src.file, line, column: col, path };
}

/** The value a node stands for: an alias's anchored value, any other node itself. */
export function unalias(src: SourceDoc, node: unknown): Node | null {
  if (isAlias(node)) return src.aliases.get(node) ?? null;
  return (node as Node | null | undefined) ?? null;
}

/** Parses YAML text; when it is refused (a syntax error, a limit) reports why, where, and returns undefined. */
export function parseYaml(file: string, text: string, diag: Diagnostics): SourceDoc | undefined {
  const parsed = parseBoundedYaml(text);
  if (!parsed.ok) {
    const { line, col } = parsed.lines.linePos(parsed.offset);
    diag.add({ file, line, column: col, path: "", message: parsed.message });
    return undefined;
  }
  return { file, doc: parsed.doc, lines: parsed.lines, aliases: parsed.aliases };
}

/** Reads and parses a file; `undefined` when it is missing (nothing reported), refused or does not parse (reported). */
export async function readYaml(jail: RepositoryJail, file: string, diag: Diagnostics): Promise<SourceDoc | undefined> {
  const text = await readText(jail, file, diag);
  return text === undefined ? undefined : parseYaml(file, text, diag);
}
