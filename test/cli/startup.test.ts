/**
 * What the built command loads. The `svc-iac` bin runs a command from five files (`main.js`, the
 * compile cache's switch and its folder, the help check and the program bundled into one file,
 * scripts/build-cli.mjs) and, of node_modules, only what a command uses outside the bundle; help
 * alone runs the unbundled program, which loads a few small files. Inside it, modules start as the unbundled ones do (a
 * module required lazily starts when first required), so the program's own laziness is checked on
 * the unbundled modules: `--help` only its usage text, `validate` the loader and the kinds' checks,
 * never the emulator, the API client, the GitHub code or the Pulumi SDK. Module lists come from
 * `require.cache` at exit (speed itself is measured by `npm run bench`, not here).
 */
import { execFile } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtCli, copyRepo, FIXTURE_SECRETS } from "../helpers/repo";
import { minimalEnv } from "../helpers/process-env";

const ROOT = join(__dirname, "../..");
let main: string;
let work: string;
/** The program as `src/cli/program.ts` runs it, on the unbundled modules of `dist/`. */
let unbundled: string;

/** Runs `script` with a preload that lists every loaded module (repository-relative) at exit. */
async function loadedBy(
  args: string[],
  script = unbundled,
): Promise<{ code: number; modules: string[]; stdout: string; stderr: string }> {
  const list = join(work, `modules-${Math.random().toString(36).slice(2)}.json`);
  const hook = join(work, "list-modules.cjs");
  let code = 0;
  let out = { stdout: "", stderr: "" };
  try {
    out = await promisify(execFile)(process.execPath, ["--require", hook, script, ...args], {
      env: { ...minimalEnv(), LIST_MODULES: list, ...FIXTURE_SECRETS },
    });
  } catch (e) {
    const failed = e as { code?: number; stdout?: string; stderr?: string };
    code = failed.code ?? 1;
    out = { stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
  const modules = (JSON.parse(readFileSync(list, "utf8")) as string[])
    .filter((m) => m !== hook && m !== unbundled)
    .map((m) => relative(ROOT, m));
  return { code, modules, ...out };
}

const under = (modules: string[], prefix: string) => modules.filter((m) => m.startsWith(prefix));

beforeAll(() => {
  main = builtCli();
  work = mkdtempSync(join(tmpdir(), "svc-startup-"));
  writeFileSync(
    join(work, "list-modules.cjs"),
    'process.on("exit", () => require("node:fs").writeFileSync(process.env.LIST_MODULES, JSON.stringify(Object.keys(require.cache))));\n',
  );
  unbundled = join(work, "unbundled-program.cjs");
  writeFileSync(
    unbundled,
    `require(${JSON.stringify(join(ROOT, "dist/cli/run-cli.js"))}).runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() }).then((code) => { process.exitCode = code; });\n`,
  );
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("GIVEN the built svc-iac bin", () => {
  const BIN = ["dist/cache-folder.js", "dist/cli/compile-cache.js", "dist/cli/help-request.js", "dist/cli/main.js"];

  it("WHEN it prints its help THEN it loads the unbundled program's usage text, not the bundle", async () => {
    const { code, modules, stdout } = await loadedBy(["plan", "--help"], main);
    expect(code).toBe(0);
    expect(stdout).toContain("svc-iac plan");
    expect(modules.sort()).toEqual(
      [
        ...BIN,
        "dist/cli/node-version.js",
        "dist/cli/program.js",
        "dist/cli/run-cli.js",
        "dist/cli/usage.js",
        "dist/errors.js",
        "dist/scrub.js",
      ].sort(),
    );
  });

  it("WHEN it validates a repository with a Python error THEN the bundle alone finds the checker script and reports the error at its line", async () => {
    const repo = copyRepo("valid-full");
    writeFileSync(join(repo, "canvases/reports/broken.py"), "@fused.udf\ndef udf(:\n    return 1\n");
    const { code, modules, stderr } = await loadedBy(["validate", repo], main);
    expect(stderr).toContain("canvases/reports/broken.py:2:9: Python syntax error");
    expect(code).toBe(1);
    expect(modules.sort()).toEqual([...BIN, "dist/cli/program.bundle.js"].sort());
  });
});

/** The bin's validate of `repo` with no variable but PATH, the fixtures' secrets and `env`. */
const runBin = (repo: string, env: Record<string, string>) =>
  promisify(execFile)(process.execPath, [main, "validate", repo], {
    env: { PATH: process.env.PATH ?? "", SVC_PYTHON: "", ...FIXTURE_SECRETS, ...env },
  });

describe("GIVEN the built svc-iac bin and V8's compiled code it keeps", () => {
  it("WHEN it runs THEN the code is kept in the user's cache folder (SVC_CACHE_DIR), never in the shared temporary folder; set and empty, nowhere", async () => {
    const repo = copyRepo("valid-full");
    const cache = join(work, "cache");
    const tmp = join(work, "tmp-a");
    mkdirSync(tmp);
    await runBin(repo, { SVC_CACHE_DIR: cache, TMPDIR: tmp });
    expect(readdirSync(join(cache, "node-compile-cache")).length).toBeGreaterThan(0);
    expect(readdirSync(tmp)).toEqual([]);
    await runBin(repo, { SVC_CACHE_DIR: "", HOME: join(work, "home"), TMPDIR: tmp });
    expect(readdirSync(tmp)).toEqual([]);
    expect(existsSync(join(work, "home"))).toBe(false);
  });

  it("WHEN there is no home THEN the code is kept in a folder of the temporary folder only this user can write, and never in one another user could have made", async () => {
    const repo = copyRepo("valid-full");
    const uid = process.getuid?.();
    if (uid === undefined) return; // no user ids (Windows): no such folder is made
    const tmp = join(work, "tmp-b");
    mkdirSync(tmp);
    await runBin(repo, { TMPDIR: tmp });
    const own = join(tmp, `svc-iac-${uid}`);
    expect(statSync(own).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(own, "node-compile-cache")).length).toBeGreaterThan(0);
    // A folder of that name that others can write (planted before the first run): not used.
    const planted = join(work, "tmp-c");
    mkdirSync(join(planted, `svc-iac-${uid}`), { recursive: true });
    chmodSync(join(planted, `svc-iac-${uid}`), 0o777);
    await runBin(repo, { TMPDIR: planted });
    expect(readdirSync(join(planted, `svc-iac-${uid}`))).toEqual([]);
  });
});

describe("GIVEN the program on its unbundled modules", () => {
  it("WHEN it prints its help THEN it loads its usage text and the error base, nothing else", async () => {
    const { code, modules } = await loadedBy(["--help"]);
    expect(code).toBe(0);
    // The usage error is of the error family: its base and the scrubber, two small files.
    expect(modules.filter((m) => !m.startsWith("dist/cli/")).sort()).toEqual(["dist/errors.js", "dist/scrub.js"]);
    expect(under(modules, "dist/cli/").sort()).toEqual([
      "dist/cli/help-request.js",
      "dist/cli/node-version.js",
      "dist/cli/run-cli.js",
      "dist/cli/usage.js",
    ]);
  });

  it("WHEN a command's help is asked (apply --help) THEN it loads its usage text and the error base, nothing else", async () => {
    const { code, modules } = await loadedBy(["apply", "--auto-approve", "--help"]);
    expect(code).toBe(0);
    expect(modules.sort()).toEqual([
      "dist/cli/help-request.js",
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
