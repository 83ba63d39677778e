/**
 * An apply interrupted during a tested switch-over (`deploy: tested`), as a user's process is: the
 * built command runs as a child process against the emulator while the candidate's tests run
 * (the new body sleeps, so they take a while).
 * - SIGKILL: the candidate stays on the platform, noted in the state; the next apply removes it
 *   first and then switches over.
 * - SIGINT: the step in flight finishes (tests, the live update, the candidate removed), nothing else starts.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { runSvc } from "../../helpers/cli-run";
import { builtCli, copyRepo, outputsFileOf, platformView, stateDirOf } from "../../helpers/repo";
import { CANDIDATES_DOCUMENT } from "../../../src/reconcile/udf-tests/switch-over";
import { minimalEnv } from "../../helpers/process-env";

const GREET = "canvases/checks/greet.py";

describe("GIVEN a shared UDF with deploy: tested whose new body takes a while to run", () => {
  const fx = useEmulator();
  let dir: string;
  let env: Record<string, string>;
  let main: string;

  const candidates = async () => (await platformView(fx.user)).udfs.filter((u) => u.slug.startsWith("svc-candidate-"));
  const greet = async () => (await platformView(fx.user)).udfs.find((u) => u.slug === "greet")!;
  const note = () => join(stateDirOf(dir, "smoke"), CANDIDATES_DOCUMENT);
  const setVersion = (n: number) => {
    const path = join(dir, GREET);
    writeFileSync(path, readFileSync(path, "utf8").replace(/"version": \d+/, `"version": ${n}`));
  };

  /** Starts apply in its own process and sends `signal` once its candidate exists on the platform. */
  async function applyAndSignal(signal: NodeJS.Signals): Promise<{ code: number | null; stderr: string }> {
    const child = spawn(process.execPath, [main, "apply", dir, "--auto-approve", "--outputs", outputsFileOf(dir)], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.stdout.resume();
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    for (;;) {
      if ((await candidates()).length) break;
      if (child.exitCode !== null) throw new Error(`apply ended before its candidate was made:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill(signal);
    return { code: await exited, stderr };
  }

  beforeAll(async () => {
    main = builtCli();
    dir = copyRepo("udf-tests");
    const settings = join(dir, "canvases/checks/greet.yaml");
    writeFileSync(settings, `shared_token: true\ndeploy: tested\n${readFileSync(settings, "utf8")}`);
    // Each run of the new body sleeps: the tests on the candidate take about three seconds.
    const code = join(dir, GREET);
    writeFileSync(
      code,
      readFileSync(code, "utf8").replace(
        "    import text\n",
        "    import text\n    import time\n\n    time.sleep(1)\n",
      ),
    );
    env = {
      ...minimalEnv(),
      SVC_BASE_URL: fx.emu.baseUrl,
      SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
      SVC_TOKEN: fx.emu.tokens.user_token,
      SMOKE_KEY: "smoke-secret-value-5d1f0b",
      NO_COLOR: "1",
    };
    const first = await runSvc(["apply", dir, "--auto-approve", "--outputs", outputsFileOf(dir)], env);
    expect(first.code, first.stderr).toBe(0);
  }, 60_000);

  it("WHEN apply is killed during the candidate's tests THEN the candidate is noted, and the next apply removes it and then switches over", async () => {
    const before = await greet();
    setVersion(3);
    const killed = await applyAndSignal("SIGKILL");
    expect(killed.code).toBeNull();
    const [left] = await candidates();
    expect(left).toBeDefined();
    expect(JSON.parse(readFileSync(note(), "utf8")).candidates).toEqual([
      expect.objectContaining({ address: "udf.checks/greet", slug: left!.slug }),
    ]);
    // The live UDF was not touched.
    expect((await greet()).udf_body).toBe(before.udf_body);

    const again = await runSvc(["apply", dir, "--auto-approve", "--outputs", outputsFileOf(dir)], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`Removed the switch-over candidate ${left!.slug} of udf.checks/greet`);
    expect(await candidates()).toEqual([]);
    expect(existsSync(note())).toBe(false);
    const after = await greet();
    expect(after.id).toBe(before.id);
    expect(after.udf_body).toContain('\\"version\\": 3');
  }, 60_000);

  it("WHEN apply gets SIGINT during the candidate's tests THEN the switch-over in flight finishes and leaves no candidate", async () => {
    const before = await greet();
    setVersion(4);
    const stopped = await applyAndSignal("SIGINT");
    expect(stopped.stderr).toContain("SIGINT");
    expect(await candidates()).toEqual([]);
    expect(existsSync(note())).toBe(false);
    const after = await greet();
    expect(after.id).toBe(before.id);
    expect(after.udf_body).toContain('\\"version\\": 4');
  }, 60_000);
});
