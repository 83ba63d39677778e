/**
 * The documentation as a reader meets it: README.md and every page under docs/, parsed with
 * markdown-it (the CommonMark parser GitHub's renderer agrees with on headings and links), with
 * the anchors GitHub gives their headings.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import MarkdownIt from "markdown-it";

export const ROOT = join(__dirname, "../..");
const md = new MarkdownIt({ html: true });

export interface Link {
  href: string;
  line: number;
}
export interface Page {
  file: string;
  text: string;
  anchors: Set<string>;
  links: Link[];
  fences: { info: string; content: string; line: number }[];
}

/** GitHub's heading anchor: lower case, punctuation other than - and _ dropped, spaces as -. */
export function anchorOf(headingText: string): string {
  return headingText
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

type Token = ReturnType<InstanceType<typeof MarkdownIt>["parse"]>[number];
const plain = (children: Token[] | null): string =>
  (children ?? []).map((c) => (c.type === "text" || c.type === "code_inline" ? c.content : plain(c.children))).join("");

function linksIn(tokens: Token[], line: number, into: Link[]): void {
  for (const t of tokens) {
    const href = t.type === "link_open" ? t.attrGet("href") : t.type === "image" ? t.attrGet("src") : null;
    if (href) into.push({ href: String(href), line });
    if (t.children) linksIn(t.children, line, into);
  }
}

export function readPage(file: string): Page {
  const text = readFileSync(join(ROOT, file), "utf8");
  const tokens = md.parse(text, {});
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const links: Link[] = [];
  const fences: Page["fences"] = [];
  tokens.forEach((t, i) => {
    const line = (t.map?.[0] ?? 0) + 1;
    if (t.type === "heading_open") {
      const base = anchorOf(plain(tokens[i + 1]!.children));
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    if (t.type === "inline") linksIn(t.children ?? [], line, links);
    if (t.type === "fence") fences.push({ info: t.info.trim(), content: t.content, line });
  });
  return { file, text, anchors, links, fences };
}

/** README.md and docs/*.md, as paths from the package root. */
export function documentationFiles(): string[] {
  return [
    "README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}
