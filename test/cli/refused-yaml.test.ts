/**
 * YAML the loader refuses (an alias bomb, a self-reference, nesting past the limit, a value JSON
 * cannot carry), on the command line: validate, plan and apply refuse it with the same message at
 * the same place, exit 1 with no engine text, and send nothing; and values JSON carries settle.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess as run } from "../helpers/cli-run";
import { useEmulator } from "../helpers/emulator";
import { copyRepo, emulatorEnv, outputsFileOf, platformView } from "../helpers/repo";

const bomb = ["entrypoint: udf", "metadata:", `  l0: &l0 [${Array(10).fill("x").join(", ")}]`];
for (let i = 1; i <= 9; i++)
  bomb.push(
    `  l${i}: &l${i} [${Array(10)
      .fill(`*l${i - 1}`)
      .join(", ")}]`,
  );

const CASES = [
  {
    name: "a 9-level alias bomb in a UDF's metadata",
    file: "canvases/listings/loader.yaml",
    text: `${bomb.join("\n")}\n`,
    error:
      "canvases/listings/loader.yaml:6:47: the alias *l2 takes the values repeated by aliases in this file past the limit of 10,000 (it repeats 1,111); write the values out, or repeat fewer",
  },
  {
    name: "a self-referencing alias in a cronjob's args",
    file: "cronjobs/daily-stats.yaml",
    text: 'schedule: "0 6 * * 1-5"\nudf: listings/stats\nargs: &a\n  self: *a\n',
    error:
      "cronjobs/daily-stats.yaml:4:9: the alias *a is inside the value it repeats (&a), so it would repeat itself forever; an alias must name a value that ends before it",
  },
  {
    name: "10,000 nested lists in a UDF's metadata",
    file: "canvases/listings/loader.yaml",
    text: `entrypoint: udf\nmetadata:\n  x: ${"[".repeat(10_000)}${"]".repeat(10_000)}\n`,
    error: "canvases/listings/loader.yaml:3:104: lists and mappings nest deeper than the limit of 100 levels here",
  },
  {
    name: "-.inf in a cronjob's args",
    file: "cronjobs/daily-stats.yaml",
    text: 'schedule: "0 6 * * 1-5"\nudf: listings/stats\nargs:\n  city: -.inf\n',
    error:
      'cronjobs/daily-stats.yaml:4:9: args.city: found -.inf (minus infinity), which JSON cannot carry: the platform would store null; expected a finite number, or "-.inf" in quotes for the text',
  },
];

describe("GIVEN a repository the loader refuses", () => {
  const fx = useEmulator();

  it.each(CASES)(
    "WHEN validate, plan and apply run on $name THEN each exits 1 with the same located message, no engine text, and nothing on the platform",
    async ({ file, text, error }) => {
      const dir = copyRepo("valid-full");
      writeFileSync(join(dir, file), text);
      const env = emulatorEnv(fx.emu);
      const before = await platformView(fx.user);
      const outputs = ["--outputs", outputsFileOf(dir)];
      const runs = [
        await run("validate", [dir], env),
        await run("plan", [dir, ...outputs], env),
        await run("apply", [dir, ...outputs, "--auto-approve"], env),
      ];
      for (const r of runs) {
        expect(r.code).toBe(1);
        // The file as reached from where the command ran: DIR joined.
        expect(r.stderr.split("\n")[0]).toBe(join(dir, error));
        expect(r.log).not.toMatch(/call stack|RangeError|TypeError|\n\s+at /);
      }
      const json = [
        await run("validate", [dir, "--json"], env),
        await run("plan", [dir, "--json", ...outputs], env),
        await run("apply", [dir, "--json", "--auto-approve", ...outputs], env),
      ];
      for (const r of json) {
        expect(r.code).toBe(1);
        const doc = JSON.parse(r.stdout) as {
          errors: { file: string; line: number; column: number; path: string; message: string }[];
        };
        expect(doc.errors).toHaveLength(1);
        const e = doc.errors[0]!;
        expect(`${e.file}:${e.line}:${e.column}: ${e.path ? `${e.path}: ` : ""}${e.message}`).toBe(error);
      }
      expect(await platformView(fx.user)).toEqual(before);
    },
  );
});

describe("GIVEN values JSON carries, at their extremes, in a cronjob's args and a UDF's metadata", () => {
  const fx = useEmulator();

  it("WHEN applied THEN the next plan says No changes: what the platform stored is what the plan compares with", async () => {
    const dir = copyRepo("valid-full");
    const extremes =
      '{huge: 1.7976931348623157e308, tiny: 5e-324, zero: -0, max: 9007199254740991, min: -9007199254740991, astral: "😀", nul: "a\\0b", empty: {}, none: [], nothing: null}';
    writeFileSync(
      join(dir, "cronjobs/daily-stats.yaml"),
      `schedule: "0 6 * * 1-5"\nudf: listings/stats\nargs: ${extremes}\n`,
    );
    writeFileSync(join(dir, "canvases/listings/loader.yaml"), `entrypoint: udf\nmetadata: {extremes: ${extremes}}\n`);
    const env = emulatorEnv(fx.emu);
    const outputs = ["--outputs", outputsFileOf(dir)];
    const applied = await run("apply", [dir, ...outputs, "--auto-approve"], env);
    expect(applied.code, applied.log).toBe(0);
    const plan = await run("plan", [dir, ...outputs, "--detailed-exitcode"], env);
    expect(plan.stdout).toContain("No changes");
    expect(plan.code).toBe(0);
  });
});
