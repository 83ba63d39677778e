/**
 * `examples/repo` and `npm start`: the example repository is valid, and the start script's apply
 * (built CLI, embedded emulator, tokens to an outputs file) creates everything on the first run
 * and finds nothing to do on the second; its `svc-iac test` then runs the example's UDF tests on
 * the deployed UDF. Runs on a temp copy so the work tree stays clean.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRepository } from "../../src/reconcile/load";
import { formatLoadError } from "../../src/model/desired";

const run = promisify(execFile);
const ROOT = resolve(__dirname, "../..");
const CLI = join(ROOT, "dist/cli/main.js");
const EXAMPLE = join(ROOT, "examples/repo");
const API_KEY = "example-api-key-3c9d51e7";

/** The environment of `npm start`: no platform configured (so the embedded emulator), the example's one secret. */
function startEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, EXAMPLE_API_KEY: API_KEY, NO_COLOR: "1" };
  for (const name of Object.keys(env))
    if (/SVC_(BASE_URL|UDF_BASE_URL|TOKEN|SERVICE_TOKEN)$/.test(name)) delete env[name];
  return env;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], cwd = ROOT): Promise<Run> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { cwd, env: startEnv(), timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === "number" ? err.code : -1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
  }
}

/** A copy of examples/repo without what earlier runs left in it (emulator, state, outputs, the written policy). */
function freshCopy(): string {
  const to = join(mkdtempSync(join(tmpdir(), "svc-example-")), "repo");
  const generated = /^(\.svc-iac|policies)(\/|$)/;
  cpSync(EXAMPLE, to, { recursive: true, filter: (src) => !generated.test(relative(EXAMPLE, src)) });
  return to;
}

/** The apply of `npm start` (package.json), on `repo` instead of examples/repo. */
const startArgs = (repo: string) => ["apply", repo, "--auto-approve", "--outputs", join(repo, ".svc-iac/outputs.json")];

describe("the example repository", () => {
  it("is what npm start applies, with the same flags this test uses", () => {
    const start = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts.start as string;
    expect(start).toContain(
      "node dist/cli/main.js apply examples/repo --auto-approve --outputs examples/repo/.svc-iac/outputs.json",
    );
    expect(start).toContain("EXAMPLE_API_KEY=");
    expect(start).toContain("&& node dist/cli/main.js test examples/repo");
  });

  it("validates with every target", async () => {
    for (const target of ["default", "staging", "prod"]) {
      const r = await cli(["validate", EXAMPLE, "--target", target]);
      expect({ target, code: r.code, stderr: r.stderr }).toEqual({ target, code: 0, stderr: "" });
      expect(r.stdout).toBe("Valid: 18 objects.\n");
    }
  });

  it("has a preview target: pull request 42 gets prefixed names and its own state", async () => {
    const r = await loadRepository(EXAMPLE, { target: "preview", env: { EXAMPLE_API_KEY: API_KEY, PR_NUMBER: "42" } });
    if (!r.ok) throw new Error(r.errors.map(formatLoadError).join("\n"));
    expect(r.project.objects.filter((o) => o.kind === "Canvas").map((o) => o.inputs.name)).toEqual([
      "pr_42_listings",
      "pr_42_ops_reports",
    ]);
    // A UDF without a canvas is named by its slug alone: wrapped too, so the preview never adopts production's.
    expect(r.project.objects.find((o) => o.address === "udf.nightly_rate")?.inputs.slug).toBe("pr_42_nightly_rate");
    expect(r.project.objects.find((o) => o.address === "udf.listings/loader")?.inputs.slug).toBe("loader");
    expect(r.project.settings.state).toEqual({
      kind: "remote",
      url: "s3://demo-bucket/svc-iac/previews/pr-42/listings-demo/preview",
    });
  });

  describe("GIVEN a fresh copy and no platform configured", () => {
    let repo: string;
    let first: Run;
    let tests: Run;
    let second: Run;

    beforeAll(async () => {
      repo = freshCopy();
      first = await cli(startArgs(repo));
      tests = await cli(["test", repo]);
      second = await cli(startArgs(repo));
    }, 120_000);

    afterAll(() => rmSync(join(repo, ".."), { recursive: true, force: true }));

    it("WHEN npm start runs THEN it applies every object on the embedded emulator", () => {
      expect(first.code).toBe(0);
      expect(first.stderr).toContain("using the embedded emulator");
      expect(first.stdout).toContain("Plan for listings-demo (default)");
      expect(first.stdout).toContain("Plan: 17 to create, 1 to share.");
      expect(first.stdout).toContain("Apply complete: 18 done, 0 failed, 0 skipped.");
      expect(existsSync(join(repo, ".svc-iac/local/emulator.sqlite"))).toBe(true);
      expect(existsSync(join(repo, ".svc-iac/state/listings-demo/default"))).toBe(true);
    });

    it("THEN its svc-iac test runs the example's tests on the deployed UDF, and they pass", () => {
      expect({ code: tests.code, stderr: tests.stderr }).toEqual({
        code: 0,
        stderr: expect.stringContaining("using the embedded emulator"),
      });
      expect(tests.stdout).toContain("Testing listings-demo (default) on real-time instance");
      expect(tests.stdout).toMatch(/✓ udf\.ops_reports\/price_bands: default prices \(\d+ ms\)/);
      expect(tests.stdout).toMatch(/✓ udf\.ops_reports\/price_bands: narrower bands/);
      expect(tests.stdout).toMatch(/✓ udf\.ops_reports\/price_bands: no prices is an error/);
      expect(tests.stdout).toMatch(/✓ udf\.nightly_rate: three nights/);
      expect(tests.stdout).toContain("Tests passed: 4 passed, 0 failed.");
    });

    it("THEN the new tokens go only to the outputs file, readable by its owner alone", () => {
      const file = join(repo, ".svc-iac/outputs.json");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const tokens = JSON.parse(readFileSync(file, "utf8")).tokens as Record<string, { token: string }>;
      expect(Object.keys(tokens).sort()).toEqual([
        "service_account.listings-deployer",
        "share.listings",
        "udf.listings/loader",
      ]);
      const printed = first.stdout + first.stderr + tests.stdout + tests.stderr + second.stdout + second.stderr;
      for (const { token } of Object.values(tokens)) {
        expect(token.length).toBeGreaterThan(8);
        expect(printed).not.toContain(token);
      }
      expect(printed).not.toContain(API_KEY);
    });

    it("THEN the bucket policy is written where bucket-policies.yaml says", () => {
      const policy = JSON.parse(readFileSync(join(repo, "policies/demo-bucket.json"), "utf8"));
      expect(policy.Statement[0].Resource).toContain("arn:aws:s3:::demo-bucket");
    });

    it("WHEN npm start runs again THEN it reports no changes", () => {
      expect(second.code).toBe(0);
      expect(second.stdout).toContain("No changes.");
      expect(second.stdout).toContain("Apply complete: 0 done, 0 failed, 0 skipped.");
    });

    it("THEN drift finds none", async () => {
      const r = await cli(["drift", repo]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("No drift.");
    });
  });
});
