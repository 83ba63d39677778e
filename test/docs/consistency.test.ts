/**
 * The pages agree with the package and with themselves: every Node.js version they name as the
 * minimum is the one package.json's engines require, and no page says the same paragraph twice.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { documentationFiles, ROOT } from "./markdown-pages";

const engines = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).engines.node as string;
const minimum = engines.replace(/^>=\s*/, "");

describe("the documentation", () => {
  it("keeps the README under 300 lines (detail lives in docs/)", () => {
    expect(readFileSync(join(ROOT, "README.md"), "utf8").trimEnd().split("\n").length).toBeLessThan(300);
  });

  it("never installs svc-iac from the registry, where it is not published yet (npm answers 404)", () => {
    const fromRegistry = documentationFiles().flatMap((file) =>
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .flatMap((line, i) =>
          /npm install\b[^`#]*\ssvc-iac(\s|$|`|@)/.test(line) && !line.includes("answers 404")
            ? [`${file}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(fromRegistry).toEqual([]);
  });

  it("names one minimum Node.js version: package.json's", () => {
    const wrong = documentationFiles().flatMap((file) =>
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .flatMap((line, i) =>
          [...line.matchAll(/Node(?:\.js)? (\d+\.\d+)(?= or (?:newer|later))/g)]
            .filter((m) => m[1] !== minimum)
            .map((m) => `${file}:${i + 1}: "${m[0]}"; expected ${minimum} (package.json engines ${engines})`),
        ),
    );
    expect(wrong).toEqual([]);
  });

  it("never says the same sentence twice on one page (a repeated paragraph)", () => {
    const repeated = documentationFiles().flatMap((file) => {
      const seen = new Map<string, number>();
      const out: string[] = [];
      // Prose only: tables, code and headings repeat by nature.
      let inFence = false;
      const prose: { text: string; line: number }[] = [];
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (line.trimStart().startsWith("```")) inFence = !inFence;
          else if (!inFence && !/^\s*(\||#)/.test(line)) prose.push({ text: line, line: i + 1 });
        });
      const text = prose.map((p) => p.text).join("\n");
      const lineAt = (offset: number) => prose[text.slice(0, offset).split("\n").length - 1]!.line;
      let offset = 0;
      for (const piece of text.split(/(?<=\.)(\s+)(?=[A-Z`*(])/)) {
        const sentence = piece.replace(/\s+/g, " ").trim();
        const line = lineAt(offset);
        offset += piece.length;
        if (sentence.length < 120) continue;
        const first = seen.get(sentence);
        if (first !== undefined)
          out.push(`${file}:${line}: repeats the sentence of line ${first}: "${sentence.slice(0, 60)}…"`);
        else seen.set(sentence, line);
      }
      return out;
    });
    expect(repeated).toEqual([]);
  });
});
