/**
 * The bounds YAML files are read within (src/repository/yaml-parse.ts, yaml-aliases.ts) and the
 * values JSON cannot carry (json-values.ts): each refusal names the limit or the value, at the
 * file:line:column to fix, and nothing below a limit is refused.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSeedText, SeedFileError } from "../../../src/emulator/seed-file";
import { setTopLevelKey } from "../../../src/reconcile/import/keep-edits";
import { loadRepository } from "../../../src/reconcile/load/index";
import { YAML_LIMITS } from "../../../src/repository/yaml-limits";
import { formatLoadError, type LoadResult } from "../../../src/model/desired";
import { copyRepo, FIXTURE_SECRETS } from "../../helpers/repo";

const UDF_SETTINGS = "canvases/listings/loader.yaml";

function errorsOf(r: LoadResult): string[] {
  if (r.ok) throw new Error("expected the load to fail");
  return r.errors.map(formatLoadError);
}

/** valid-full with `file` replaced by `text`, loaded. */
async function loadWith(file: string, text: string): Promise<LoadResult> {
  const dir = copyRepo("valid-full");
  writeFileSync(join(dir, file), text);
  return loadRepository(dir, { env: FIXTURE_SECRETS });
}

const metadataOf = (r: LoadResult) => {
  if (!r.ok) throw new Error(`expected a valid load: ${r.errors.map(formatLoadError).join("\n")}`);
  return (r.project.objects.find((o) => o.address === "udf.listings/loader")!.inputs as { metadata: unknown }).metadata;
};

/** `l0: &l0 [x, …]` then `lN: &lN [*lN-1, …]`, ten to a level: 10^levels values from a few hundred bytes. */
function aliasBomb(levels: number): string {
  const lines = ["entrypoint: udf", "metadata:", `  l0: &l0 [${Array(10).fill("x").join(", ")}]`];
  for (let i = 1; i <= levels; i++)
    lines.push(
      `  l${i}: &l${i} [${Array(10)
        .fill(`*l${i - 1}`)
        .join(", ")}]`,
    );
  return `${lines.join("\n")}\n`;
}

describe("aliases", () => {
  it("GIVEN a UDF's metadata holding a 9-level alias bomb (12 lines) WHEN loaded THEN it is refused at the alias that passes the limit, naming the alias and the limit", async () => {
    const errors = errorsOf(await loadWith(UDF_SETTINGS, aliasBomb(9)));
    // l0 repeats 11 values, l1's aliases 110, l2's 1,110: the eighth `*l2` of l3 (line 6) takes the total past 10,000.
    expect(errors).toEqual([
      `${UDF_SETTINGS}:6:47: the alias *l2 takes the values repeated by aliases in this file past the limit of 10,000 (it repeats 1,111); write the values out, or repeat fewer`,
    ]);
  });

  it("GIVEN the same bomb at a key that takes a single value (project, schedule) WHEN loaded THEN it is refused the same way, before the key is read", async () => {
    const svc = `project: &p [${Array(10).fill("x").join(", ")}]\n${Array.from(
      { length: 5 },
      (_, i) =>
        `v${i}: &v${i} [${Array(10)
          .fill(i ? `*v${i - 1}` : "*p")
          .join(", ")}]`,
    ).join("\n")}\n`;
    const errors = errorsOf(await loadWith("svc.yaml", svc));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^svc\.yaml:4:\d+: the alias \*v1 takes the values repeated by aliases in this file past the limit of 10,000/,
    );
  });

  it("GIVEN one long string repeated by a few thousand aliases (under the values limit) WHEN loaded THEN it is refused at the alias that takes the repeated text past its limit", async () => {
    const text = `entrypoint: udf\nmetadata:\n  long: &s "${"x".repeat(100_000)}"\n  copies: [${Array(5_000).fill("*s").join(", ")}]\n`;
    const errors = errorsOf(await loadWith(UDF_SETTINGS, text));
    // The eleventh *s makes 1,100,000 characters; each alias is 4 characters after "  copies: [".
    expect(errors).toEqual([
      `${UDF_SETTINGS}:4:52: the alias *s takes the text repeated by aliases in this file past the limit of 1,048,576 characters (it repeats 100,000); write the text out, or repeat it less`,
    ]);
  });

  it.each([
    [
      "a UDF's metadata",
      UDF_SETTINGS,
      "entrypoint: udf\nmetadata: &m\n  self: *m\n",
      `${UDF_SETTINGS}:3:9: the alias *m is inside`,
    ],
    [
      "svc.yaml's variables",
      "svc.yaml",
      "project: listings\nvariables:\n  tags: &t [*t]\n",
      "svc.yaml:3:13: the alias *t is inside",
    ],
    [
      "a cronjob's args",
      "cronjobs/daily-stats.yaml",
      'schedule: "0 6 * * 1-5"\nudf: listings/stats\nargs: &a\n  again: [*a]\n',
      "cronjobs/daily-stats.yaml:4:11: the alias *a is inside",
    ],
  ])(
    "GIVEN an alias inside the value it names, in %s, WHEN loaded THEN it is refused at the alias as a cycle, with no engine text",
    async (_where, file, text, start) => {
      const errors = errorsOf(await loadWith(file, text));
      expect(errors).toEqual([expect.stringContaining(start)]);
      expect(errors[0]).toContain("so it would repeat itself forever");
      expect(errors.join("\n")).not.toMatch(/call stack|RangeError|Maximum/);
    },
  );

  it("GIVEN an alias naming no anchor WHEN loaded THEN it is refused at the alias (it used to read as an empty value)", async () => {
    expect(errorsOf(await loadWith(UDF_SETTINGS, "entrypoint: udf\nmetadata:\n  tags: *nowhere\n"))).toEqual([
      `${UDF_SETTINGS}:3:9: the alias *nowhere names no anchor: expected &nowhere on a value written before it`,
    ]);
  });

  it("GIVEN aliases repeating a few values, and an anchor written again WHEN loaded THEN every alias takes the value of the anchor written last before it", async () => {
    const text =
      "entrypoint: udf\nmetadata:\n  base: &d {city: nyc, limit: 5}\n  copy: *d\n  next: &d [1]\n  last: *d\n";
    expect(metadataOf(await loadWith(UDF_SETTINGS, text))).toEqual({
      base: { city: "nyc", limit: 5 },
      copy: { city: "nyc", limit: 5 },
      next: [1],
      last: [1],
    });
  });

  it("GIVEN aliases that together nest past the nesting limit WHEN loaded THEN the alias that passes it is refused, naming the limit", async () => {
    // Each level wraps the one before in one more list: 120 short lines, 120 levels once expanded.
    const lines = ["entrypoint: udf", "metadata:", "  a0: &a0 [x]"];
    for (let i = 1; i < 120; i++) lines.push(`  a${i}: &a${i} [*a${i - 1}]`);
    const errors = errorsOf(await loadWith(UDF_SETTINGS, `${lines.join("\n")}\n`));
    // metadata (2 levels with the top mapping) + a98's list + a97's 98 levels = 101.
    expect(errors).toEqual([
      `${UDF_SETTINGS}:101:14: the alias *a97 nests lists and mappings 101 deep, past the limit of 100 levels`,
    ]);
  });
});

describe("nesting", () => {
  const nested = (levels: number) => `${"[".repeat(levels)}1${"]".repeat(levels)}`;

  it("GIVEN a value nested exactly to the limit WHEN loaded THEN it loads whole", async () => {
    // The top mapping and metadata's mapping are 2 levels; 98 lists reach 100.
    let expected: unknown = 1;
    for (let i = 0; i < 98; i++) expected = [expected];
    expect(metadataOf(await loadWith(UDF_SETTINGS, `entrypoint: udf\nmetadata:\n  x: ${nested(98)}\n`))).toEqual({
      x: expected,
    });
  });

  it("GIVEN one level more, 900 levels or 10,000 WHEN loaded THEN it is refused where it passes the limit, naming the limit, never as a syntax error or a stack overflow", async () => {
    for (const levels of [99, 900, 10_000]) {
      const errors = errorsOf(
        await loadWith(UDF_SETTINGS, `entrypoint: udf\nmetadata:\n  x:\n    ${nested(levels)}\n`),
      );
      // The 99th `[` opens level 101: column 4 + 99.
      expect(errors).toEqual([
        `${UDF_SETTINGS}:4:103: lists and mappings nest deeper than the limit of 100 levels here`,
      ]);
    }
  });

  it("GIVEN block lists nested past the limit on one line (- - - …) WHEN loaded THEN they are refused the same way", async () => {
    const errors = errorsOf(
      await loadWith(
        "cronjobs/daily-stats.yaml",
        `schedule: "0 6 * * 1-5"\nudf: listings/stats\nargs:\n  x:\n    ${"- ".repeat(150)}1\n`,
      ),
    );
    expect(errors).toEqual([
      "cronjobs/daily-stats.yaml:5:201: lists and mappings nest deeper than the limit of 100 levels here",
    ]);
  });
});

describe("size, documents and quotes", () => {
  it("GIVEN a YAML file past the size limit WHEN loaded THEN it is refused at its start, naming its size and the limit", async () => {
    const big = `entrypoint: udf\nmetadata:\n  text: "${"a".repeat(YAML_LIMITS.fileBytes)}"\n`;
    expect(errorsOf(await loadWith(UDF_SETTINGS, big))).toEqual([
      `${UDF_SETTINGS}:1:1: the file is 1,048,613 bytes, past the limit of 1,048,576 bytes for a YAML file`,
    ]);
  });

  it("GIVEN two documents in one file WHEN loaded THEN the second is refused where it starts: one YAML document per file, no advice for programmers", async () => {
    const errors = errorsOf(
      await loadWith(
        "cronjobs/daily-stats.yaml",
        'schedule: "0 6 * * 1-5"\nudf: listings/stats\n---\nschedule: "0 7 * * *"\n',
      ),
    );
    expect(errors).toEqual([
      "cronjobs/daily-stats.yaml:3:1: a second YAML document starts here; write one YAML document per file",
    ]);
    expect(errors[0]).not.toContain("parseAllDocuments");
  });

  it("GIVEN a quote that is never closed WHEN loaded THEN the error points at the line where the quote opens, not at the end of the file", async () => {
    const text =
      'entrypoint: udf\nmetadata:\n  "fused:description": "Loads listings\n  "fused:tags": [a]\nvisible: true\nposition: 0\n';
    expect(errorsOf(await loadWith(UDF_SETTINGS, text))).toEqual([
      `${UDF_SETTINGS}:3:24: YAML syntax error: the quote " opened here is never closed; expected a closing " after the text`,
    ]);
  });
});

describe("references", () => {
  it("GIVEN a 500,000-character variable referenced 3,000 times in one file WHEN loaded THEN the reference that takes the file past the limit is refused, once; referenced twice it loads", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(
      join(dir, "svc.yaml"),
      `project: listings\nvariables:\n  city: nyc\n  limit: 5\n  tags: [demo]\n  big: "${"x".repeat(500_000)}"\n`,
    );
    const settings = (n: number) =>
      `entrypoint: udf\nmetadata:\n  copies: [${Array(n).fill('"${var.big}"').join(", ")}]\n`;
    writeFileSync(join(dir, UDF_SETTINGS), settings(3_000));
    expect(errorsOf(await loadRepository(dir, { env: FIXTURE_SECRETS }))).toEqual([
      `${UDF_SETTINGS}:3:40: metadata.copies[2]: the reference \${var.big} takes the text that references put into this file past the limit of 1,048,576 characters (it puts 500,000); use a shorter variable, or reference it fewer times`,
    ]);
    writeFileSync(join(dir, UDF_SETTINGS), settings(2));
    const loaded = await loadRepository(dir, { env: FIXTURE_SECRETS });
    expect((metadataOf(loaded) as { copies: string[] }).copies.map((c) => c.length)).toEqual([500_000, 500_000]);
  });

  it("GIVEN a value of 900,000 characters that is one long unknown or unclosed reference (${env.${env.… ) WHEN loaded THEN it is refused at the field, quoting a short start of it, not the whole value", async () => {
    for (const body of [`${"${env.".repeat(150_000)}}`, "${env.".repeat(150_000)]) {
      const errors = errorsOf(await loadWith("canvases/listings/canvas.yaml", `dashboard_body: "${body}"\n`));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        /^canvases\/listings\/canvas\.yaml:1:17: dashboard_body: (unknown reference|unclosed reference in) "\$\{env\.\$\{env\./,
      );
      expect(errors[0]!.length).toBeLessThan(300);
    }
  });
});

describe("values JSON cannot carry", () => {
  it("GIVEN NaN, infinities, an integer past 2^53, a lone surrogate and tagged binary, timestamp and set values WHEN loaded THEN each is refused where written, with its path", async () => {
    const text = [
      'schedule: "0 6 * * 1-5"',
      "udf: listings/stats",
      "args:",
      "  city: -.inf",
      "  n: .nan",
      "  big: 1e400",
      "  id: 12345678901234567890",
      '  text: "\\ud800"',
      "  blob: !!binary aGk=",
      "  day: !!timestamp 2001-12-14",
      "  set: !!set {a}",
      '  fine: [1e300, 0.1, -0, 9007199254740991, "😀", .nan-like]',
    ].join("\n");
    const errors = errorsOf(await loadWith("cronjobs/daily-stats.yaml", `${text}\n`));
    expect(errors).toEqual([
      'cronjobs/daily-stats.yaml:4:9: args.city: found -.inf (minus infinity), which JSON cannot carry: the platform would store null; expected a finite number, or "-.inf" in quotes for the text',
      'cronjobs/daily-stats.yaml:5:6: args.n: found .nan (not a number), which JSON cannot carry: the platform would store null; expected a finite number, or ".nan" in quotes for the text',
      'cronjobs/daily-stats.yaml:6:8: args.big: found 1e400 (infinity), which JSON cannot carry: the platform would store null; expected a finite number, or "1e400" in quotes for the text',
      'cronjobs/daily-stats.yaml:7:7: args.id: found 12345678901234567890, a whole number beyond 9007199254740991 that JSON carries as 12345678901234567000, so the platform would store another number; expected a smaller number, or "12345678901234567890" in quotes for the text',
      "cronjobs/daily-stats.yaml:8:9: args.text: found a string holding \\uD800, half of a surrogate pair, which UTF-8 cannot carry (the platform would store a replacement character); expected whole characters",
      "cronjobs/daily-stats.yaml:9:18: args.blob: found a value tagged !!binary, which JSON cannot carry as written; expected a string, a number, true or false, or an empty value (without the tag)",
      "cronjobs/daily-stats.yaml:10:20: args.day: found a value tagged !!timestamp, which JSON cannot carry as written; expected a string, a number, true or false, or an empty value (without the tag)",
      "cronjobs/daily-stats.yaml:11:14: args.set: found a collection tagged !!set, which JSON cannot carry; expected a plain list or mapping (without the tag)",
    ]);
  });

  it("GIVEN .nan in a UDF's metadata and in svc.yaml's variables WHEN loaded THEN both are refused where written, and the UDF using the variable is not blamed", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(join(dir, UDF_SETTINGS), "entrypoint: udf\nmetadata:\n  score: .NaN\n");
    writeFileSync(join(dir, "svc.yaml"), "project: listings\nvariables:\n  city: nyc\n  limit: .inf\n  tags: [demo]\n");
    expect(errorsOf(await loadRepository(dir, { env: FIXTURE_SECRETS }))).toEqual([
      `${UDF_SETTINGS}:3:10: metadata.score: found .NaN (not a number), which JSON cannot carry: the platform would store null; expected a finite number, or ".NaN" in quotes for the text`,
      'svc.yaml:4:10: variables.limit: found .inf (infinity), which JSON cannot carry: the platform would store null; expected a finite number, or ".inf" in quotes for the text',
    ]);
  });
});

describe("every reader of YAML is bounded", () => {
  it("GIVEN the emulator's seed file holding an alias bomb or 10,000 levels WHEN parsed THEN it is refused at its line, naming the limit", () => {
    const refusal = (text: string) => {
      try {
        parseSeedText("seed.yaml", text);
      } catch (e) {
        if (e instanceof SeedFileError) return e.errors.map(formatLoadError);
        throw e;
      }
      throw new Error("expected the seed to be refused");
    };
    expect(refusal(aliasBomb(9).replace("entrypoint: udf\nmetadata:\n", "extra:\n"))[0]).toMatch(
      /^seed\.yaml:5:\d+: the alias \*l2 takes the values repeated by aliases in this file past the limit of 10,000/,
    );
    expect(refusal(`teams: ${"[".repeat(10_000)}`)).toEqual([
      "seed.yaml:1:107: lists and mappings nest deeper than the limit of 100 levels here",
    ]);
  });

  it("GIVEN import --keep editing a file that holds an alias bomb WHEN a key is set in place THEN the edit is refused with the limit, and the text is not expanded", () => {
    const r = setTopLevelKey("canvases/listings/loader.yaml", aliasBomb(9), "visible", false);
    expect(r).toEqual({
      problem: expect.stringMatching(
        /^canvases\/listings\/loader\.yaml:6:47: the alias \*l2 takes .* past the limit of 10,000 .*, so visible cannot be set in place\.$/,
      ),
    });
  });
});
