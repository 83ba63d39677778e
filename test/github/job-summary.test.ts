import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appendJobSummary, JOB_SUMMARY_MAX_BYTES } from "../../src/github/job-summary";
import { countBytes, countChars, cutTo, renderWithin } from "../../src/github/text-budget";

async function summaryFile(existing = ""): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), "gh-summary-")), "summary.md");
  await writeFile(file, existing);
  return file;
}

describe("job summary", () => {
  it("appends the Markdown when it fits", async () => {
    const file = await summaryFile("earlier step\n");
    const r = await appendJobSummary(file, () => "### Plan\n\nno changes", "CUT");
    expect(r.cut).toBe(false);
    expect(await readFile(file, "utf8")).toBe("earlier step\n\n### Plan\n\nno changes\n");
  });

  it("stays under 1 MiB counting what the file already holds, and says it was cut", async () => {
    const file = await summaryFile("x".repeat(600_000));
    // A renderer that ignores its budget: the summary must still fit.
    const huge = Array.from({ length: 20_000 }, (_, i) => `| row ${i} | ${"é".repeat(20)} |`).join("\n");
    const r = await appendJobSummary(file, () => huge, "_Cut to fit the 1 MiB limit._");
    expect(r.cut).toBe(true);
    expect((await stat(file)).size).toBeLessThanOrEqual(JOB_SUMMARY_MAX_BYTES);
    const text = await readFile(file, "utf8");
    expect(text.trimEnd().endsWith("_Cut to fit the 1 MiB limit._")).toBe(true);
    expect(text).not.toContain("\uFFFD");
  });

  it("gives a tiered renderer a smaller budget when multi-byte characters overflow the bytes", async () => {
    const file = await summaryFile();
    const budgets: number[] = [];
    const r = await appendJobSummary(
      file,
      (maxChars) => {
        budgets.push(maxChars);
        return "€".repeat(maxChars); // 3 bytes per character
      },
      "CUT",
      1000,
    );
    expect(r.cut).toBe(false);
    expect(budgets.length).toBeGreaterThan(1);
    expect((await stat(file)).size).toBeLessThanOrEqual(1000);
  });

  it("does nothing outside Actions (no summary file)", async () => {
    expect(await appendJobSummary(undefined, () => "x", "CUT")).toEqual({ bytes: 0, cut: false });
  });
});

describe("cutting text to a limit", () => {
  it("cuts at a line break and closes an open <details> so the note stays visible", () => {
    const text = `head\n<details><summary>a</summary>\n\n${"line\n".repeat(100)}</details>\n`;
    const cut = cutTo(text, 120, countChars, "NOTE");
    expect(cut.length).toBeLessThanOrEqual(120);
    expect(cut.endsWith("</details>\nNOTE")).toBe(true);
  });

  it("closes an open code fence", () => {
    const text = "```text\n" + "line\n".repeat(100) + "```\n";
    const cut = cutTo(text, 60, countChars, "NOTE");
    expect(cut.length).toBeLessThanOrEqual(60);
    expect(cut.endsWith("\n```\nNOTE")).toBe(true);
  });

  it("returns the renderer's text untouched when it fits", () => {
    expect(renderWithin(() => "small", 100, countBytes, "NOTE")).toEqual({ text: "small", cut: false });
  });
});

describe("cutting at a line break", () => {
  it("keeps a whole line that ends exactly at the cut", () => {
    // Room for 9 characters before "\nNOTE": exactly "aaaa\nbbbb", whose line break is the next character.
    expect(cutTo("aaaa\nbbbb\ncccc\ndddd\n", 14, countChars, "NOTE")).toBe("aaaa\nbbbb\nNOTE");
  });
});
