/**
 * A {@link ChangeGraph} as Mermaid (GitHub renders ```mermaid blocks in comments and job summaries)
 * or as Graphviz DOT. Pure.
 *
 * Names are untrusted (repository, platform): they appear only inside quoted labels, never as ids
 * or style names. In Mermaid every character outside a small plain set is written as a numeric
 * entity (`#96;` for a backtick, `#34;` for a quote), so a label cannot close its quotes, end the
 * code fence around the diagram, open HTML or a link, or hold a `:` (which Mermaid's style
 * pre-processor would act on); in DOT quotes and backslashes are escaped and control characters
 * dropped.
 */
import { shortTitle, STYLES, type ChangeGraph, type GraphNode, type NodeStyle } from "./change-graph";
import { fence } from "./markdown-fit";
import { formatCount, oneLine } from "./values";

/** Characters written as they are in a Mermaid label; every other one becomes `#<code point>;`. */
const MERMAID_PLAIN = /[A-Za-z0-9 ._/*-]/;

/** `s` on one line, cut to a readable length, with every character outside the plain set as a Mermaid entity. */
export function mermaidText(s: string): string {
  let out = "";
  for (const ch of shortTitle(oneLine(s))) out += MERMAID_PLAIN.test(ch) ? ch : `#${ch.codePointAt(0)};`;
  return out;
}

/** `s` inside a DOT quoted string: one line, no control characters, `"` and `\` escaped. */
export function dotText(s: string): string {
  return shortTitle(oneLine(s))
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, "")
    .replace(/[\\"]/g, (c) => `\\${c}`);
}

const usedStyles = (g: ChangeGraph): NodeStyle[] => [...new Set(g.nodes.map((n) => n.style))];

/**
 * The graph as a Mermaid flowchart, left to right. Each node shows its address (or group) and what
 * happens to it, so the picture reads without its colours.
 */
/** What an empty graph draws: one node saying so, not a bare header a reader takes for a failure. */
const NO_CHANGES = "No changes";

export function toMermaid(g: ChangeGraph): string {
  const lines = ["flowchart LR"];
  if (g.nodes.length === 0) lines.push(`  none["${NO_CHANGES}"]`);
  for (const n of g.nodes) lines.push(`  ${n.id}["${mermaidText(n.title)}<br/>${mermaidText(n.caption)}"]`);
  for (const e of g.edges)
    lines.push(e.type === "ref" ? `  ${e.from} --> ${e.to}` : `  ${e.from} -. taken by .-> ${e.to}`);
  for (const s of usedStyles(g)) {
    const st = STYLES[s];
    lines.push(
      `  classDef ${s} fill:${st.fill},stroke:${st.stroke},color:#1f2328${st.dashed ? ",stroke-dasharray:5 3" : ""}`,
    );
    lines.push(
      `  class ${g.nodes
        .filter((n) => n.style === s)
        .map((n) => n.id)
        .join(",")} ${s}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The graph as a Graphviz digraph (`dot -Tsvg`), left to right, styled as the Mermaid one. */
export function toDot(g: ChangeGraph): string {
  const node = (n: GraphNode) => {
    const st = STYLES[n.style];
    return `  ${n.id} [label="${dotText(n.title)}\\n${dotText(n.caption)}", style="filled${st.dashed ? ",dashed" : ""}", fillcolor="${st.fill}", color="${st.stroke}"];`;
  };
  const lines = ["digraph plan {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica"];'];
  if (g.nodes.length === 0) lines.push(`  none [label="${NO_CHANGES}"];`);
  for (const n of g.nodes) lines.push(node(n));
  for (const e of g.edges)
    lines.push(
      e.type === "ref" ? `  ${e.from} -> ${e.to};` : `  ${e.from} -> ${e.to} [style=dashed, label="taken by"];`,
    );
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

/** A sentence under the diagram when groups were collapsed: how many objects the groups hold. */
export function collapsedNote(g: ChangeGraph): string {
  return g.collapsed > 0
    ? `${formatCount(g.collapsed)} of ${formatCount(g.objects)} objects are drawn in groups, with their count.`
    : "";
}

/**
 * The diagram as a Markdown section (a heading and a ```mermaid block), or "" for an empty graph.
 * The fence is longer than any backtick run in the body (there is none: labels are entities).
 */
export function mermaidSection(g: ChangeGraph, heading: string): string {
  if (g.nodes.length === 0) return "";
  const note = collapsedNote(g);
  return `${heading}\n\n${fence(toMermaid(g).trimEnd(), "mermaid")}${note ? `\n${note}\n` : ""}\n`;
}
