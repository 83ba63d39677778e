import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { code, htmlText, inertMarkdown, markdownText } from "../../../src/reconcile/render/markdown-escape";

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

describe("GIVEN a Markdown document from elsewhere (a check run's summary)", () => {
  it("WHEN made inert THEN a mention, foreign HTML, an image and a link to elsewhere render as text", () => {
    const out = inertMarkdown(
      "@octocat <img src=x onerror=alert(1)> ![px](https://t.example/p.gif) [click](https://evil.example) #12",
    );
    expect(out).toBe(
      "@\u200boctocat &lt;img src=x onerror=alert(1)> !\\[px]\\(https://t.example/p.gif) [click]\\(https://evil.example) #\u200b12",
    );
  });

  it("THEN svc-iac's own structure stays: details, summary, bold, code spans, fenced diffs, links to the repository", () => {
    const ours = [
      "<details open><summary><b>udf.sales/a</b></summary>",
      "",
      "Changes `a<b` in [the run](https://github.com/acme/infra/actions/runs/1)",
      "```diff",
      "- if a < b: @decorator",
      "+ <img src=x>",
      "```",
      "</details>",
    ].join("\n");
    expect(inertMarkdown(ours, ["https://github.com/acme/infra/"])).toBe(ours);
  });

  it("THEN a code block left open is closed, so it cannot swallow what follows", () => {
    expect(inertMarkdown("```\n</details>\n<img src=x>")).toBe("```\n</details>\n<img src=x>\n```");
  });
});
