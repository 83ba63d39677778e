/**
 * `svc-iac test` and `apply --test`, as a user runs them: the command line (in this process) against
 * the emulator over HTTP, which runs the deployed UDFs in python3. Exit codes, the results and the
 * differences printed, --only, --json, and no secret in any output.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/emulator";
import { runSvc } from "../helpers/cli-run";
import { copyRepo, outputsFileOf } from "../helpers/repo";

const SECRET = "smoke-secret-value-5d1f0b";

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

describe("GIVEN a repository whose UDFs declare tests", () => {
  const fx = useEmulator();
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const printed: string[] = [];

  async function cli(...args: string[]): Promise<Ran> {
    const r = await runSvc(args, env as Record<string, string>);
    printed.push(r.stdout, r.stderr);
    return r;
  }

  const edit = (file: string, from: string, to: string) => {
    const path = join(dir, file);
    const text = readFileSync(path, "utf8");
    expect(text).toContain(from);
    writeFileSync(path, text.replace(from, to));
  };

  beforeAll(() => {
    dir = copyRepo("udf-tests");
    env = {
      PATH: process.env.PATH,
      SVC_BASE_URL: fx.emu.baseUrl,
      SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
      SVC_TOKEN: fx.emu.tokens.user_token,
      SMOKE_KEY: SECRET,
      NO_COLOR: "1",
    };
  });

  it("WHEN nothing is deployed yet THEN every test fails saying so, exit 1", async () => {
    const r = await cli("test", dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("Testing smoke (default) on real-time instance rt-demo-primary");
    expect(r.stdout).toContain("✗ udf.checks/greet: default greeting");
    expect(r.stdout).toContain("udf.checks/greet is not deployed on this target: run svc-iac apply first");
    expect(r.stdout).toContain("Tests failed: 0 passed, 4 failed.");
  });

  it("WHEN apply --test runs THEN it applies, runs the tests of the UDFs it created, and they pass: exit 0", async () => {
    const r = await cli("apply", dir, "--auto-approve", "--outputs", outputsFileOf(dir), "--test");
    expect(r.stderr).not.toContain("Tests not run");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Apply complete:");
    expect(r.stdout).toMatch(/✓ udf\.checks\/boom: #1 \(\d+ ms\)/);
    expect(r.stdout).toMatch(/✓ udf\.checks\/greet: default greeting \(\d+ ms\)/);
    expect(r.stdout).toMatch(/✓ udf\.checks\/greet: a variable name/);
    expect(r.stdout).toMatch(/✓ udf\.checks\/greet: a name that is not text/);
    expect(r.stdout).toContain("Tests passed: 4 passed, 0 failed.");
  });

  it("WHEN test runs on what is deployed THEN every test passes, exit 0; --only narrows them", async () => {
    const all = await cli("test", dir);
    expect({ code: all.code, summary: all.stdout.split("\n").at(-2) }).toEqual({
      code: 0,
      summary: "Tests passed: 4 passed, 0 failed.",
    });
    const only = await cli("test", dir, "--only", "udf.checks/b*");
    expect(only.code).toBe(0);
    expect(only.stdout).toContain("✓ udf.checks/boom: #1");
    expect(only.stdout).not.toContain("udf.checks/greet");
    expect(only.stdout).toContain("Tests passed: 1 passed, 0 failed.");
  });

  it("WHEN a test is malformed THEN exit 1 with every error at file:line:column, and nothing runs", async () => {
    const r = await cli("test", copyRepo("error-udf-tests"));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      "canvases/checks/one.yaml:2:11: tests[0].args: found a list, expected a mapping of the UDF's parameters",
    );
    expect(r.stderr).toContain("canvases/checks/two.yaml:2:3: tests: found a mapping, expected a list of tests");
    expect(r.stderr).toContain("10 errors in ");
    expect(r.stderr).toContain("no test was run.");
  });

  it("WHEN --only matches no UDF with tests THEN exit 1 naming the ones that have tests", async () => {
    const r = await cli("test", dir, "--only", "udf.checks/untested");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "--only udf.checks/untested matches no UDF with tests; UDFs with tests: udf.checks/boom, udf.checks/greet.",
    );
  });

  it("WHEN --json is given THEN one JSON document holds every result", async () => {
    const r = await cli("test", dir, "--json", "--only", "udf.checks/greet");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      version: 1,
      project: "smoke",
      target: "default",
      client_id: "rt-demo-primary",
      ok: true,
      counts: { passed: 3, failed: 0 },
    });
    expect(doc.results.map((x: { name: string; status: string }) => [x.name, x.status])).toEqual([
      ["default greeting", "passed"],
      ["a variable name", "passed"],
      ["a name that is not text", "passed"],
    ]);
    expect(doc.results[0].source).toBe("canvases/checks/greet.yaml:6:5");
  });

  it("WHEN an expectation does not hold THEN the test fails with where it is declared and each difference, exit 1", async () => {
    edit("canvases/checks/greet.yaml", "      length: 3", "      length: 4\n      meta: {lang: fr}");
    const r = await cli("test", dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ udf\.checks\/greet: a variable name \(\d+ ms\)\n/);
    expect(r.stdout).toContain(
      '    at canvases/checks/greet.yaml:10:5\n    $.length: expected 4, found 3\n    $.meta.lang: expected "fr", found "en"\n',
    );
    expect(r.stdout).toContain("Tests failed: 3 passed, 1 failed.");
    edit("canvases/checks/greet.yaml", "      length: 4\n      meta: {lang: fr}", "      length: 3");
  });

  it("WHEN a test expects an error but the UDF returns, or the UDF raises unexpectedly THEN both fail with the reason", async () => {
    edit(
      "canvases/checks/boom.yaml",
      "  - expect_error: true",
      "  - expect_error: true\n    name: raises\n  - name: returns\n    expect: {ok: true}",
    );
    const r = await cli("test", dir, "--only", "udf.checks/boom");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✓ udf.checks/boom: raises");
    expect(r.stdout).toContain("✗ udf.checks/boom: returns");
    expect(r.stdout).toContain("the UDF raised an error:");
    expect(r.stdout).toContain("ValueError: no data");
    edit(
      "canvases/checks/boom.yaml",
      "  - expect_error: true\n    name: raises\n  - name: returns\n    expect: {ok: true}",
      "  - expect_error: true",
    );
  });

  it("WHEN apply --test deploys a change that breaks a test THEN the apply completes but the command exits 1; only the changed UDF is tested", async () => {
    edit("canvases/checks/greet.py", '"length": len(name)', '"length": len(name) + 1');
    const r = await cli("apply", dir, "--auto-approve", "--outputs", outputsFileOf(dir), "--test");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("Apply complete: 1 done, 0 failed, 0 skipped.");
    expect(r.stdout).toContain("$.length: expected 3, found 4");
    expect(r.stdout).not.toContain("udf.checks/boom");
    expect(r.stdout).toContain("Tests failed: 2 passed, 1 failed.");
    const again = await cli("apply", dir, "--auto-approve", "--outputs", outputsFileOf(dir), "--test");
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("No changed UDF declares tests: nothing to test.");
    edit("canvases/checks/greet.py", '"length": len(name) + 1', '"length": len(name)');
    const json = await cli("apply", dir, "--auto-approve", "--outputs", outputsFileOf(dir), "--test", "--json");
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc.report.counts).toMatchObject({ done: 1, failed: 0 });
    expect(doc.tests).toMatchObject({ ok: true, counts: { passed: 3, failed: 0 } });
    expect(doc.tests.results.map((x: { address: string }) => x.address)).toEqual([
      "udf.checks/greet",
      "udf.checks/greet",
      "udf.checks/greet",
    ]);
  });

  it("GIVEN GitHub Actions WHEN a UDF's error text holds a workflow command THEN no printed line can start one", async () => {
    edit(
      "canvases/checks/boom.yaml",
      "  - expect_error: true",
      '  - expect_error: true\n  - name: injected\n    args: {reason: "bad\\n::error::pwned"}\n    expect: {ok: true}',
    );
    const saved = env;
    env = { ...env, GITHUB_ACTIONS: "true" };
    try {
      const r = await cli("test", dir, "--only", "udf.checks/boom");
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("::error::pwned");
      expect(r.stdout).not.toMatch(/^\s*::error::pwned/m);
    } finally {
      env = saved;
      edit(
        "canvases/checks/boom.yaml",
        '  - expect_error: true\n  - name: injected\n    args: {reason: "bad\\n::error::pwned"}\n    expect: {ok: true}',
        "  - expect_error: true",
      );
    }
  });

  it("GIVEN a target with a name_prefix and no inventory THEN the tests find the UDFs on the prefixed canvas", async () => {
    const svc = join(dir, "svc.yaml");
    const before = readFileSync(svc, "utf8");
    writeFileSync(svc, `${before}targets:\n  preview:\n    name_prefix: pr_7_\n`);
    try {
      const applied = await cli("apply", dir, "--target", "preview", "--auto-approve", "--outputs", outputsFileOf(dir));
      expect(applied.code).toBe(0);
      rmSync(join(dir, ".svc-iac", "state", "smoke", "preview"), { recursive: true, force: true });
      const r = await cli("test", dir, "--target", "preview", "--only", "udf.checks/greet", "--json");
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.stdout);
      const { udfs } = await fx.user.canvases.getByName("pr_7_checks");
      expect(doc.results.map((x: { udfId: string }) => x.udfId)).toEqual(
        Array(3).fill(udfs.find((u) => u.slug === "greet")!.id),
      );
    } finally {
      writeFileSync(svc, before);
    }
  });

  it("WHEN a result holds a secret value THEN the output shows [REDACTED], never the value or the token", async () => {
    edit(
      "canvases/checks/greet.yaml",
      'args: {name: "${var.who}", repeat: 2}',
      'args: {name: "${env.SMOKE_KEY}", repeat: 2}',
    );
    const r = await cli("test", dir, "--only", "udf.checks/greet");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('$.greeting: expected "hello ada hello ada", found "hello [REDACTED] hello [REDACTED]"');
    const json = await cli("test", dir, "--only", "udf.checks/greet", "--json");
    expect(json.stdout).toContain("[REDACTED]");
    edit(
      "canvases/checks/greet.yaml",
      'args: {name: "${env.SMOKE_KEY}", repeat: 2}',
      'args: {name: "${var.who}", repeat: 2}',
    );
    for (const text of printed) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(fx.emu.tokens.user_token);
    }
  });
});
