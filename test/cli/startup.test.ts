/**
 * What the built command loads: `--help` only its usage text, `validate` the loader and the kinds'
 * checks, never the emulator, the API client, the GitHub code or the Pulumi SDK. Module lists come
 * from `require.cache` at exit (speed itself is measured by `npm run bench`, not here).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtCli, copyRepo, FIXTURE_SECRETS } from "../helpers/repo";

const ROOT = join(__dirname, "../..");
let main: string;
let work: string;

/** Runs the built command with a preload that lists every loaded module (repository-relative) at exit. */
async function loadedBy(args: string[]): Promise<{ code: number; modules: string[] }> {
  const list = join(work, `modules-${Math.random().toString(36).slice(2)}.json`);
  const hook = join(work, "list-modules.cjs");
  let code = 0;
  try {
    await promisify(execFile)(process.execPath, ["--require", hook, main, ...args], {
      env: { PATH: process.env.PATH ?? "", LIST_MODULES: list, ...FIXTURE_SECRETS },
    });
  } catch (e) {
    code = (e as { code?: number }).code ?? 1;
  }
  const modules = (JSON.parse(readFileSync(list, "utf8")) as string[])
    .filter((m) => m !== hook)
    .map((m) => relative(ROOT, m));
  return { code, modules };
}

const under = (modules: string[], prefix: string) => modules.filter((m) => m.startsWith(prefix));

beforeAll(() => {
  main = builtCli();
  work = mkdtempSync(join(tmpdir(), "svc-startup-"));
  writeFileSync(
    join(work, "list-modules.cjs"),
    'process.on("exit", () => require("node:fs").writeFileSync(process.env.LIST_MODULES, JSON.stringify(Object.keys(require.cache))));\n',
  );
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("GIVEN the built svc-iac command", () => {
  it("WHEN it prints its help THEN it loads its usage text and the error base, nothing else", async () => {
    const { code, modules } = await loadedBy(["--help"]);
    expect(code).toBe(0);
    // The usage error is of the error family: its base and the scrubber, two small files.
    expect(modules.filter((m) => !m.startsWith("dist/cli/")).sort()).toEqual(["dist/errors.js", "dist/scrub.js"]);
    expect(under(modules, "dist/cli/").sort()).toEqual([
      "dist/cli/main.js",
      "dist/cli/node-version.js",
      "dist/cli/run-cli.js",
      "dist/cli/usage.js",
    ]);
  });

  it("WHEN a command's help is asked (apply --help) THEN it loads its usage text and the error base, nothing else", async () => {
    const { code, modules } = await loadedBy(["apply", "--auto-approve", "--help"]);
    expect(code).toBe(0);
    expect(modules.sort()).toEqual([
      "dist/cli/main.js",
      "dist/cli/node-version.js",
      "dist/cli/run-cli.js",
      "dist/cli/usage.js",
      "dist/errors.js",
      "dist/scrub.js",
    ]);
  });

  it("WHEN it validates a repository THEN it loads neither the emulator, the API client, the engine, GitHub code nor the Pulumi SDK", async () => {
    const { code, modules } = await loadedBy(["validate", copyRepo("valid-full")]);
    expect(code).toBe(0);
    expect(under(modules, "dist/reconcile/load/").length).toBeGreaterThan(0);
    for (const prefix of [
      "dist/emulator/",
      "dist/api/client",
      "dist/api/transport",
      "dist/reconcile/apply",
      "dist/reconcile/observe",
      "dist/reconcile/state/",
      "dist/github/action",
      "dist/provider/",
      "node_modules/@pulumi/",
      "node_modules/undici/",
      "node_modules/@octokit/",
    ]) {
      expect(under(modules, prefix), prefix).toEqual([]);
    }
  });
});
