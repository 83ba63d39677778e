import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { code, htmlText, markdownText } from "../../../src/reconcile/render/markdown-escape";

const PLANTED =
  "@octocat [x](https://e.example) ![t](https://e.example/t.png) <b>bold</b> www.e.example #12 *em* `tick`";
const md = new MarkdownIt({ html: true, linkify: true });
/** Rendered text, with zero-width spaces removed: what a reader sees. */
const seen = (html: string) =>
  html
    .replace(/<[^>]+>/g, "")
    .replace(/\u200b/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .trim();

describe("markdownText", () => {
  it("renders as the characters it holds: no link, image, HTML, emphasis or code", () => {
    const html = md.renderInline(markdownText(PLANTED));
    expect(html).not.toMatch(/<(a|img|b|em|code)\b/);
    expect(seen(html)).toBe(PLANTED);
  });

  it("breaks mentions, references and autolinks with a zero-width space, which GitHub does not link", () => {
    const out = markdownText("@octocat #12 https://e.example www.e.example");
    expect(out).not.toMatch(/@octocat|#12|:\/\/|www\./);
  });

  it("keeps a line: line breaks show as ⏎", () => {
    expect(markdownText("a\nb\r\n# heading")).not.toContain("\n");
  });
});

describe("htmlText", () => {
  it("is inert inside an HTML element", () => {
    const html = md.render(`<details><summary>${htmlText(PLANTED)}</summary>\n\nx\n</details>\n`);
    expect(html).not.toMatch(/<(a|img|b)\b/);
    expect(html).not.toContain("@octocat");
    expect(seen(html.replace(/^[\s\S]*<summary>|<\/summary>[\s\S]*$/g, ""))).toBe(PLANTED);
  });
});

describe("code", () => {
  it("holds backticks and line breaks without ending early", () => {
    for (const s of ["a`b", "``x``", "`lead", "a\n```\nb"]) {
      const html = md.renderInline(code(s));
      expect(html.match(/<code>/g)).toHaveLength(1);
      expect(html.startsWith("<code>") && html.endsWith("</code>")).toBe(true);
    }
  });
});

describe("markdownText at the start of a list item", () => {
  it("opens no heading, list or quote", () => {
    for (const s of ["# title", "- item", "+ item", "1. item", "2) item", "> quote"]) {
      const html = md.render(`- ${markdownText(s)}\n`);
      expect(html).not.toMatch(/<(h1|ol|blockquote)\b/);
      expect(html.match(/<li>/g)).toHaveLength(1);
      expect(seen(html)).toBe(s);
    }
  });
});
