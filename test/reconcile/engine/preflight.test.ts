/**
 * Plan knows what apply will hit: what would make apply stop half-way (a body over the platform's
 * request limit, a share on a real-time instance the team does not have) is refused by validate or plan at its file and line, and apply with such a
 * repository writes nothing at all.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JSON_BODY_MAX_BYTES } from "../../../src/api/request-limits";
import { useEmulator } from "../../helpers/emulator";
import { runInProcess } from "../../helpers/cli-run";
import { copyRepo, emulatorEnv, FIXTURE_SECRETS, outputsFileOf, platformView } from "../../helpers/repo";
import { countingRequests } from "../../helpers/saved-plan";
import { startInjectingProxy } from "../../helpers/injecting-proxy";

const fx = useEmulator();

/**
 * Runs `svc-iac <command> DIR` in this process against the emulator, counting the platform writes.
 * `env` adds to the environment.
 */
async function svc(command: "validate" | "plan" | "apply", dir: string, flags: string[] = [], env = {}) {
  const extra = command === "apply" ? ["--auto-approve", "--outputs", outputsFileOf(dir)] : [];
  const { result, writes } = await countingRequests(() =>
    runInProcess(command, [dir, ...extra, ...flags], emulatorEnv(fx.emu, env)),
  );
  return { ...result, writes };
}

/** Nothing of the project's is on the platform (the fixture's canvases, cronjobs, service account). */
async function expectNothingCreated() {
  const view = await platformView(fx.user);
  expect(view.canvases.map((c) => c.name).filter((n) => ["listings", "reports"].includes(n))).toEqual([]);
  expect(view.cronjobs.map((c) => c.name).filter((n) => ["daily-stats", "weekly_report"].includes(n))).toEqual([]);
}

const expectNoSecret = (text: string) => {
  for (const secret of [...Object.values(FIXTURE_SECRETS), fx.emu.tokens.user_token])
    expect(text).not.toContain(secret);
};

describe("GIVEN a repository with a 50 MB .py among valid UDFs", () => {
  it("THEN validate, plan and apply refuse the file before reading it, naming the limit, and apply creates nothing", async () => {
    const dir = copyRepo("valid-full");
    const line = "x = '" + "a".repeat(1000) + "'\n";
    writeFileSync(
      join(dir, "canvases/listings/huge.py"),
      "@fused.udf\ndef udf():\n    return 1\n" + line.repeat(50 * 1024),
    );

    for (const command of ["validate", "plan", "apply"] as const) {
      const r = await svc(command, dir);
      expect(r.code, `${command}: ${r.log}`).toBe(1);
      expect(r.stderr).toMatch(
        /canvases\/listings\/huge\.py:1:1: canvases\/listings\/huge\.py holds \d+ bytes, more than the limit of 33554432 bytes \(32 MiB\) for a repository file/,
      );
      expect(r.writes).toBe(0);
      expectNoSecret(r.log);
    }
    await expectNothingCreated();
  }, 180_000);

  it("AND a UDF whose files are each under that limit but whose body is over the platform's request limit THEN validate, plan and apply refuse it at its file, naming the limit, and apply creates nothing", async () => {
    const dir = copyRepo("valid-full");
    const line = "x = '" + "a".repeat(1000) + "'\n";
    writeFileSync(
      join(dir, "canvases/listings/huge.py"),
      "@fused.udf\ndef udf():\n    return 1\n" + line.repeat(20 * 1024),
    );
    writeFileSync(join(dir, "canvases/listings/big_helper.py"), line.repeat(20 * 1024));
    writeFileSync(
      join(dir, "canvases/listings/huge.yaml"),
      "headers:\n  - module: big_helper\n    file: big_helper.py\n",
    );

    for (const command of ["validate", "plan", "apply"] as const) {
      // Without the Python check, which would parse the 40 MB of code again for each command (9 of
      // this test's 10 s): the limit is the loader's own check.
      const r = await svc(command, dir, [], { SVC_PYTHON: "" });
      expect(r.code, `${command}: ${r.log}`).toBe(1);
      expect(r.stderr).toMatch(
        /canvases\/listings\/huge\.py:1:1: code: The UDF body \(its code, 1 helper modules? and metadata\) is \d{2},\d{3},\d{3} bytes \(\d{2}\.\d MiB\) as sent; expected at most 33,550,336 bytes \(32\.0 MiB\): the platform refuses a JSON request body over 33,554,432 bytes \(32 MiB\) \(413\), so apply would fail there\./,
      );
      expect(r.writes).toBe(0);
      expectNoSecret(r.log);
    }
    await expectNothingCreated();
  }, 180_000);

  it("AND a .py just under the limit THEN it is no error", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(
      join(dir, "canvases/listings/big.py"),
      "@fused.udf\ndef udf():\n    return 1\n# " + "b".repeat(JSON_BODY_MAX_BYTES - 64 * 1024) + "\n",
    );
    const r = await svc("validate", dir);
    expect(r.code, r.log).toBe(0);
  }, 120_000);
});

describe("GIVEN a share on a real-time instance the team does not have", () => {
  it("THEN validate passes (it cannot know), plan refuses it at canvas.yaml's share with the instances it has, and apply creates nothing", async () => {
    const dir = copyRepo("valid-full");
    const canvas = join(dir, "canvases/listings/canvas.yaml");
    writeFileSync(
      canvas,
      readFileSync(canvas, "utf8").replace("client_id: rt-demo-primary", "client_id: rt-someone-elses"),
    );
    expect((await svc("validate", dir)).code).toBe(0);

    const planned = await svc("plan", dir);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain(
      'canvases/listings/canvas.yaml:7:1: share.client_id: found "rt-someone-elses", expected one of the team\'s real-time instances ("rt-demo-primary", "rt-demo-secondary"); omit client_id for the preferred one',
    );
    expect(planned.writes).toBe(0);

    const applied = await svc("apply", dir);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('share.client_id: found "rt-someone-elses"');
    expect(applied.writes).toBe(0);
    expectNoSecret(planned.log + applied.log);
    await expectNothingCreated();
  });
});

describe("GIVEN a hostile platform that lists 5,000 real-time instances named with workflow commands, Markdown and the token", () => {
  it("WHEN plan runs under GitHub Actions THEN it refuses the share with a bounded message that starts no workflow command and shows no secret, and apply writes nothing", async () => {
    const proxy = await startInjectingProxy(fx.emu.baseUrl);
    try {
      const hostile = Array.from({ length: 5000 }, (_, i) => ({
        client_id: `::error::pwned ${i}\r\n::set-env name=X::${"y".repeat(100)} [x](https://e.example) ${fx.emu.tokens.user_token}`,
        name: `n${i}`,
        endpoint: "https://rt.example",
        preference_rank: i,
      }));
      proxy.answerWith(/^GET \/realtime-instance\/available$/, hostile);
      const dir = copyRepo("valid-full");
      const env = { ...emulatorEnv(fx.emu), SVC_BASE_URL: proxy.url, GITHUB_ACTIONS: "true" };
      for (const command of ["plan", "apply"] as const) {
        const { result: r, writes } = await countingRequests(() =>
          runInProcess(
            command,
            [dir, ...(command === "apply" ? ["--auto-approve", "--outputs", outputsFileOf(dir)] : [])],
            env,
          ),
        );
        expect(r.code, r.log).toBe(1);
        expect(r.stderr).toContain(
          'canvases/listings/canvas.yaml:7:1: share.client_id: found "rt-demo-primary", expected one of the team\'s real-time instances (',
        );
        expect(r.stderr).toContain(" and 4990 more); omit client_id for the preferred one");
        expect(r.log.length).toBeLessThan(20_000);
        // Only the annotation svc-iac builds starts a workflow command; the platform's text inside it starts none.
        for (const line of r.log.split("\n"))
          expect(line).not.toMatch(/^\s*::(?!error file=[^:]*title=svc-iac%3A invalid configuration::share.client_id)/);
        expectNoSecret(r.log);
        expect(writes).toBe(0);
      }
      await expectNothingCreated();
    } finally {
      await proxy.close();
    }
  });
});
