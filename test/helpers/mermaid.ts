/**
 * A real Mermaid parser for the tests: every diagram svc-iac writes is parsed by the `mermaid`
 * package itself, so a syntax error cannot reach a pull request. `mermaid.parse` needs a DOM (for
 * DOMPurify): a happy-dom `Window` provides it, installed on `globalThis` before mermaid loads.
 */
import { Window } from "happy-dom";

type Mermaid = typeof import("mermaid").default;
let loaded: Promise<Mermaid> | undefined;

async function load(): Promise<Mermaid> {
  const g = globalThis as Record<string, unknown>;
  if (!g.window) {
    const window = new Window();
    g.window = window;
    g.document = window.document;
  }
  const mermaid = (await import("mermaid")).default;
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
  return mermaid;
}

/** Parses `text` with Mermaid; resolves to the diagram type, rejects with Mermaid's "Parse error on line …". */
export async function parseMermaid(text: string): Promise<string> {
  const mermaid = await (loaded ??= load());
  const result = await mermaid.parse(text);
  if (!result) throw new Error("mermaid.parse returned false");
  return result.diagramType;
}

/** The bodies of the ```mermaid blocks of a Markdown document (fences of three or more backticks). */
export function mermaidBlocks(markdown: string): string[] {
  const out: string[] = [];
  const re = /^(`{3,})mermaid\n([\s\S]*?)\n\1$/gm;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) out.push(m[2]!);
  return out;
}
