/**
 * Reads one YAML file of the repository with positions: every node can be turned into
 * `file:line:column`. Syntax errors become load errors; duplicate keys are left to the readers,
 * which report them with both positions.
 */
import { LineCounter, parseDocument, type Document, type Node } from "yaml";
import type { SourceLocation } from "../../model/desired";
import type { Diagnostics } from "./diagnostics";
import { readText } from "./repo-files";

export interface SourceDoc {
  /** Relative to the repository root, `/` separators. */
  file: string;
  doc: Document.Parsed;
  lines: LineCounter;
}

/** The location of a node (its first character), or 1:1 when there is no node. */
export function locate(src: SourceDoc, node: Node | null | undefined, path: string): SourceLocation {
  const offset = node?.range?.[0];
  if (offset === undefined) return { file: src.file, line: 1, column: 1, path };
  const { line, col } = src.lines.linePos(offset);
  return { file: src.file, line, column: col, path };
}

/** Parses YAML text; on a syntax error reports the first one (later ones are usually its echoes) and returns undefined. */
export function parseYaml(file: string, text: string, diag: Diagnostics): SourceDoc | undefined {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false, merge: false });
  const first = doc.errors[0];
  if (first) {
    const { line, col } = lines.linePos(first.pos[0]);
    diag.add({ file, line, column: col, path: "", message: `YAML syntax error: ${first.message.replace(/\s+at line \d+, column \d+.*$/s, "")}` });
    return undefined;
  }
  return { file, doc, lines };
}

/** Reads and parses a file; `undefined` when it is missing (nothing reported) or does not parse (reported). */
export async function readYaml(root: string, file: string, diag: Diagnostics): Promise<SourceDoc | undefined> {
  const text = await readText(root, file);
  return text === undefined ? undefined : parseYaml(file, text, diag);
}
