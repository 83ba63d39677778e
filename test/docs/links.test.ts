import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, documentationFiles, readPage, type Page } from "./markdown-pages";

const pages = new Map<string, Page>(documentationFiles().map((f) => [f, readPage(f)]));

/** Every relative link of a page that does not resolve: a missing file, or an anchor its page lacks. */
function brokenLinks(page: Page): string[] {
  const broken: string[] = [];
  for (const { href, line } of page.links) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto: …: not ours to check
    const [path, anchor] = href.split("#", 2) as [string, string | undefined];
    const target = path === "" ? page.file : normalize(join(dirname(page.file), decodeURIComponent(path)));
    const where = `${page.file}:${line}: ${href}`;
    if (relative(ROOT, join(ROOT, target)).startsWith("..")) {
      broken.push(`${where} leaves the repository`);
      continue;
    }
    if (!existsSync(join(ROOT, target))) {
      broken.push(`${where}: no file ${target}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!target.endsWith(".md") || statSync(join(ROOT, target)).isDirectory()) {
      broken.push(`${where}: an anchor into a file that is not a page`);
      continue;
    }
    const linked = pages.get(target) ?? readPage(target);
    if (!linked.anchors.has(anchor)) broken.push(`${where}: ${target} has no heading #${anchor}`);
  }
  return broken;
}

describe("GIVEN the README and the pages under docs/", () => {
  it("THEN every relative link names a file of the repository and every #anchor a heading of its page", () => {
    expect([...pages.values()].flatMap(brokenLinks)).toEqual([]);
  });

  it("THEN every page has a table of contents listing its sections, in order", () => {
    for (const page of pages.values()) {
      if (page.file === "README.md") continue;
      const sections = [...page.text.matchAll(/^## (.*)$/gm)].length;
      const contents = page.text.split("**Contents**")[1]?.split(/\n\n## /)[0] ?? "";
      const listed = [...contents.matchAll(/^- \[[^\]]*\]\(#([^)]+)\)$/gm)].map((m) => m[1]);
      expect({ page: page.file, listed: listed.length }).toEqual({ page: page.file, listed: sections });
      expect(listed.every((a) => page.anchors.has(a!))).toBe(true);
    }
  });

  it("THEN no page sends the reader to a file outside the repository (the platform's spec is described in docs/, not linked)", () => {
    const outside = [...pages.values()].flatMap((page) =>
      page.text
        .split("\n")
        .flatMap((l, i) => (/shared\/spec|shared\/notes|platform-facts\.md/.test(l) ? [`${page.file}:${i + 1}`] : [])),
    );
    expect(outside).toEqual([]);
  });
});

describe("GIVEN the complete workflows shown in docs/github-actions.md", () => {
  const page = readPage("docs/github-actions.md");
  it.each(["plan.yml", "apply.yml", "drift.yml", "drift-remediate.yml"])(
    "THEN the page shows examples/workflows/%s exactly as the file holds it (the file is the one the tests validate)",
    (file) => {
      const shown = page.fences.filter((f) => f.info === "yaml").map((f) => f.content);
      expect(shown).toContain(readFileSync(join(ROOT, "examples/workflows", file), "utf8").trimEnd() + "\n");
    },
  );
});
