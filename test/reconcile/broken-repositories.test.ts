/**
 * Property: whatever a repository holds, the commands end with exit 0 or 1, every error is located
 * at file:line, no output holds engine text (a stack trace, "Maximum call stack size exceeded") or a
 * secret, loading takes bounded time and output, and a repository that validates applies and then
 * plans "No changes". Repositories are fixtures broken by the mutation classes of issue 32
 * (test/helpers/broken-repos.ts).
 *
 * Seeded and replayable: FUZZ_SEED (default below), FUZZ_RUNS (in-process cases, default 300),
 * FUZZ_CLI_RUNS (cases through the command line and an emulator, default 4); a failure prints
 * its seed and path, which FUZZ_SEED and FUZZ_PATH replay. `npm run fuzz` runs thousands.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/emulator";
import type { LoadError } from "../../src/model/desired";
import { validateCommand } from "../../src/reconcile/commands/validate";
import {
  BASES,
  brokenRepoArb,
  mutate,
  readFixture,
  writeRepo,
  type BaseName,
  type RepoFiles,
} from "../helpers/broken-repos";
import { runInProcess as run } from "../helpers/cli-run";
import { emulatorEnv } from "../helpers/repo";

const SEED = Number(process.env.FUZZ_SEED ?? 32_2024);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const CLI_RUNS = Number(process.env.FUZZ_CLI_RUNS ?? 4);
const PATH = process.env.FUZZ_PATH;

/** What the runtime or a library says, never the tool: stack frames, error class names, engine limits. */
const ENGINE_TEXT =
  /call stack|RangeError|TypeError|ReferenceError|SyntaxError:|Cannot read prop|is not a function|undefined is not|\n\s+at \S+ \(|parseAllDocuments|YAMLParseError|\[object Object\]/;
const SECRET_VALUES = Object.values(BASES).flatMap((env) => Object.values(env) as string[]);

let fixtures: Record<BaseName, RepoFiles>;
beforeAll(() => {
  fixtures = Object.fromEntries((Object.keys(BASES) as BaseName[]).map((b) => [b, readFixture(b)])) as Record<
    BaseName,
    RepoFiles
  >;
});

const build = (c: { base: BaseName; mutations: Parameters<typeof mutate>[1][] }) =>
  c.mutations.reduce(mutate, fixtures[c.base]);
const bytesOf = (files: RepoFiles) => [...files.values()].reduce((n, b) => n + b.length, 0);
const remove = (dir: string) => rmSync(dirname(dir), { recursive: true, force: true });

/** An error names a file or folder of the repository and a line within it. */
function expectLocated(e: LoadError, files: RepoFiles): void {
  expect(e.file, JSON.stringify(e)).toMatch(/\S/);
  expect(e.line).toBeGreaterThanOrEqual(1);
  expect(e.column).toBeGreaterThanOrEqual(1);
  expect(e.message).toMatch(/\S/);
  const bytes = files.get(e.file);
  if (bytes) expect(e.line, JSON.stringify(e)).toBeLessThanOrEqual(bytes.toString("utf8").split("\n").length);
}

function expectClean(output: string): void {
  expect(output).not.toMatch(ENGINE_TEXT);
  for (const secret of SECRET_VALUES) expect(output).not.toContain(secret);
}

describe("GIVEN fixture repositories broken at random (seeded)", () => {
  it(`WHEN ${RUNS} of them are validated in-process THEN each ends 0 or 1 with located errors, no engine text or secret, and bounded output`, {
    timeout: 120_000 + RUNS * 2_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(brokenRepoArb, async (c) => {
        const files = build(c);
        const dir = writeRepo(files);
        try {
          const r = await validateCommand({ dir, env: { ...BASES[c.base] } });
          expect([0, 1]).toContain(r.exitCode);
          if (r.exitCode === 1) expect(r.errors.length).toBeGreaterThan(0);
          for (const e of r.errors) expectLocated(e, files);
          const output = JSON.stringify(r);
          expectClean(output);
          // Output grows with the repository, never with what aliases or nesting could expand to.
          expect(output.length).toBeLessThan(64 * bytesOf(files) + 1_000_000);
        } finally {
          remove(dir);
        }
      }),
      // A case that takes more than 20 s is a hang, whatever the machine's load.
      { seed: SEED, numRuns: RUNS, path: PATH, timeout: 20_000, endOnFailure: true },
    );
  });

  it(`WHEN ${CLI_RUNS} samples go through the command line THEN an invalid one exits 1 printing located errors, and a valid one applies and then plans No changes`, {
    timeout: 120_000 + CLI_RUNS * 30_000,
  }, async () => {
    await fc.assert(
      // Eight candidates a run: the first that validates goes through apply and plan, the first that does not through validate.
      fc.asyncProperty(fc.array(brokenRepoArb, { minLength: 8, maxLength: 8 }), async (candidates) => {
        const built = candidates.map((c) => ({ c, files: build(c), dir: "" }));
        try {
          for (const b of built) b.dir = writeRepo(b.files);
          const verdicts = await Promise.all(
            built.map((b) => validateCommand({ dir: b.dir, env: { ...BASES[b.c.base] } })),
          );
          const invalid = built[verdicts.findIndex((v) => v.exitCode !== 0)];
          const valid = built[verdicts.findIndex((v) => v.exitCode === 0)];
          if (invalid) {
            const r = await run("validate", [invalid.dir], { ...BASES[invalid.c.base] });
            expect(r.code).toBe(1);
            expectClean(r.log);
            const located = r.stderr.split("\n").filter((l) => /^[^\s:][^:]*:\d+:\d+: \S/.test(l));
            expect(located.length, r.stderr).toBeGreaterThan(0);
          }
          if (valid) await expectAppliedThenSettled(valid.dir, valid.c.base);
        } finally {
          for (const b of built) if (b.dir) remove(b.dir);
        }
      }),
      { seed: SEED, numRuns: CLI_RUNS, path: PATH, endOnFailure: true },
    );
  });
});

/** On a fresh emulator: apply exits 0, then plan --detailed-exitcode exits 0 with No changes. */
async function expectAppliedThenSettled(dir: string, base: BaseName): Promise<void> {
  const emu = await startEmulator();
  try {
    const env = emulatorEnv(emu, { ...BASES[base] });
    const outputs = ["--outputs", join(dirname(dir), "outputs.json")];
    const applied = await run("apply", [dir, "--auto-approve", ...outputs], env);
    expectClean(applied.log);
    expect(applied.code, applied.log).toBe(0);
    const plan = await run("plan", [dir, "--detailed-exitcode", ...outputs], env);
    expectClean(plan.log);
    expect(plan.code, plan.log).toBe(0);
    expect(plan.stdout).toContain("No changes");
  } finally {
    await emu.close();
  }
}
