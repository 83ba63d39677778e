/**
 * `deploy: tested`: a shared UDF's new body goes to a hidden candidate first, its tests run there,
 * and only then is the live record updated (same id, same shared token). A failing test leaves the
 * live UDF on its old body and apply exits 1; no candidate is ever left on the platform, and one an
 * earlier apply left (stopped between making and removing it) is removed by the next apply.
 * The command line runs in this process against the emulator over HTTP (UDFs run in python3).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../../helpers/emulator";
import { runSvc } from "../../helpers/cli-run";
import { startInjectingProxy } from "../../helpers/injecting-proxy";
import { copyRepo, outputsFileOf, platformView, stateDirOf } from "../../helpers/repo";
import { CANDIDATES_DOCUMENT } from "../../../src/reconcile/udf-tests/switch-over";
import { minimalEnv } from "../../helpers/process-env";

const SECRET = "smoke-secret-value-5d1f0b";
const GREET = "canvases/checks/greet.py";

describe("GIVEN a shared UDF with deploy: tested and three tests", () => {
  const fx = useEmulator();
  let dir: string;
  let env: Record<string, string>;
  const printed: string[] = [];

  const cli = async (...args: string[]) => {
    const r = await runSvc(args, env);
    printed.push(r.stdout, r.stderr);
    return r;
  };
  const apply = (...more: string[]) => cli("apply", dir, "--auto-approve", "--outputs", outputsFileOf(dir), ...more);
  const edit = (file: string, from: string, to: string) => {
    const path = join(dir, file);
    const text = readFileSync(path, "utf8");
    expect(text).toContain(from);
    writeFileSync(path, text.replace(from, to));
  };
  const greet = async () => (await platformView(fx.user)).udfs.filter((u) => u.slug === "greet");
  const candidates = async () => (await platformView(fx.user)).udfs.filter((u) => u.slug.startsWith("svc-candidate-"));
  const sharedToken = (): string | undefined =>
    JSON.parse(readFileSync(outputsFileOf(dir), "utf8")).tokens["udf.checks/greet"]?.token;
  const note = () => join(stateDirOf(dir, "smoke"), CANDIDATES_DOCUMENT);

  beforeAll(async () => {
    dir = copyRepo("udf-tests");
    const settings = join(dir, "canvases/checks/greet.yaml");
    writeFileSync(settings, `shared_token: true\ndeploy: tested\n${readFileSync(settings, "utf8")}`);
    env = {
      ...minimalEnv(),
      SVC_BASE_URL: fx.emu.baseUrl,
      SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
      SVC_TOKEN: fx.emu.tokens.user_token,
      SMOKE_KEY: SECRET,
      NO_COLOR: "1",
    };
    const first = await apply();
    expect(first.code, first.stderr).toBe(0);
  });

  it("WHEN a body change passes its tests THEN the plan says so, and the live UDF is updated in place: same id, same shared token, no candidate left", async () => {
    const [before] = await greet();
    const token = sharedToken();
    expect(token).toBeTruthy();
    edit(GREET, '"version": 2', '"version": 3');

    const plan = await cli("plan", dir);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      "deploy: tested: the new body runs its 3 tests on a hidden candidate first; the live UDF changes only if they pass",
    );

    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/candidate test: ✓ udf\.checks\/greet: default greeting/);
    expect(r.stderr).toMatch(/candidate test: ✓ udf\.checks\/greet: a name that is not text/);
    const after = await greet();
    expect(after).toHaveLength(1);
    expect(after[0]!.id).toBe(before!.id);
    expect(after[0]!.udf_body).toContain('\\"version\\": 3');
    expect(sharedToken()).toBe(token);
    expect(await candidates()).toEqual([]);
    expect(existsSync(note())).toBe(false);
  });

  it("WHEN the new body fails a test THEN the live UDF keeps its old body, the failure is named, exit 1, and no candidate is left", async () => {
    const [before] = await greet();
    edit(GREET, '"greeting": " ".join', '"greeting": "bye " + " ".join');
    // A test that passes a secret value, which the failing result echoes: never printed.
    const settings = "canvases/checks/greet.yaml";
    const withoutEcho = readFileSync(join(dir, settings), "utf8");
    writeFileSync(
      join(dir, settings),
      `${withoutEcho}  - name: echo\n    args: {name: "\${env.SMOKE_KEY}"}\n    expect: {greeting: nobody}\n`,
    );

    const r = await apply();
    writeFileSync(join(dir, settings), withoutEcho);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("udf.checks/greet");
    expect(r.stdout).toContain("failed 3 of its 4 tests on a candidate, so the live UDF is unchanged");
    expect(r.stderr).toMatch(/candidate test: ✗ udf\.checks\/greet: echo/);
    expect(r.stderr + r.stdout).toContain("[REDACTED]");
    expect(r.stdout).toContain("default greeting (canvases/checks/greet.yaml:");
    expect(r.stderr).toMatch(/candidate test: ✗ udf\.checks\/greet: default greeting/);
    const [after] = await greet();
    expect({ id: after!.id, body: after!.udf_body }).toEqual({ id: before!.id, body: before!.udf_body });
    expect(await candidates()).toEqual([]);
    // Still to do: the next plan offers the same change again.
    const plan = await cli("plan", dir, "--json");
    expect(JSON.parse(plan.stdout).actions.map((a: { address: string }) => a.address)).toEqual(["udf.checks/greet"]);
    edit(GREET, '"greeting": "bye " + " ".join', '"greeting": " ".join');
  });

  it("WHEN an apply stops between making a candidate and removing it THEN the next apply removes it first and says so", async () => {
    // The platform refuses the candidate's removal: the candidate and its note stay behind.
    const proxy = await startInjectingProxy(fx.emu.baseUrl);
    try {
      edit(GREET, '"version": 3', '"version": 4');
      const live = (await greet())[0]!.id;
      proxy.failWith(new RegExp(`^DELETE /udf/by-id/(?!${live})`), "the platform is down", 400);
      const stopped = await runSvc(["apply", dir, "--auto-approve", "--outputs", outputsFileOf(dir)], {
        ...env,
        SVC_BASE_URL: proxy.url,
      });
      printed.push(stopped.stdout, stopped.stderr);
      expect(stopped.code, stopped.stderr).toBe(0);
    } finally {
      await proxy.close();
    }
    const [left] = await candidates();
    expect(left).toBeDefined();
    expect(left!.collection_id ?? null).toBeNull();
    expect(JSON.parse(readFileSync(note(), "utf8")).candidates).toEqual([
      expect.objectContaining({ address: "udf.checks/greet", slug: left!.slug, id: left!.id }),
    ]);

    // A candidate whose create answer was lost: noted with its slug only.
    const lost = await fx.user.udfs.create({ slug: "svc-candidate-lost0answer", udf_body: left!.udf_body });
    const doc = JSON.parse(readFileSync(note(), "utf8"));
    doc.candidates.push({ address: "udf.checks/greet", slug: lost.slug, since: "2026-11-27T00:00:00.000Z" });
    writeFileSync(note(), JSON.stringify(doc));

    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Removed the switch-over candidate ${left!.slug} of udf.checks/greet`);
    expect(r.stderr).toContain("Removed the switch-over candidate svc-candidate-lost0answer of udf.checks/greet");
    expect(await candidates()).toEqual([]);
    expect(existsSync(note())).toBe(false);
  });

  it("WHEN the target has no real-time instance to run the tests on THEN the switch-over fails before any candidate, and the live UDF is unchanged", async () => {
    const [before] = await greet();
    const proxy = await startInjectingProxy(fx.emu.baseUrl);
    try {
      proxy.answerWith(/^GET \/realtime-instance\/available$/, []);
      edit(GREET, '"version": 4', '"version": 5');
      const r = await runSvc(["apply", dir, "--auto-approve", "--outputs", outputsFileOf(dir)], {
        ...env,
        SVC_BASE_URL: proxy.url,
      });
      printed.push(r.stdout, r.stderr);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("deploy: tested needs a real-time instance to run the tests on");
      expect(proxy.answers.some((a) => a.request === "POST /udf/new")).toBe(false);
    } finally {
      await proxy.close();
      edit(GREET, '"version": 5', '"version": 4');
    }
    const [after] = await greet();
    expect(after!.udf_body).toBe(before!.udf_body);
    expect(await candidates()).toEqual([]);
    expect(existsSync(note())).toBe(false);
  });

  it("WHEN drift, a pruning plan and import --all run while a candidate exists THEN none mentions it", async () => {
    const [live] = await greet();
    const hand = await fx.user.udfs.create({ slug: "made_by_hand", udf_body: live!.udf_body });
    const candidate = await fx.user.udfs.create({ slug: "svc-candidate-inflight01", udf_body: live!.udf_body });
    try {
      const drift = await cli("drift", dir);
      expect(drift.code, drift.stdout).toBe(0);
      const plan = await cli("plan", dir, "--prune");
      expect(plan.code, plan.stdout).toBe(0);
      // import --all lists every UDF without a canvas: the candidate is not one to import.
      const other = join(mkdtempSync(join(tmpdir(), "svc-import-")), "repo");
      const imported = await cli("import", other, "--all", "--dry-run", "--project", "other");
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toContain("udfs/");
      expect(drift.stdout + plan.stdout + imported.stdout + imported.stderr).not.toContain("svc-candidate");
    } finally {
      await fx.user.udfs.delete(candidate.id);
      await fx.user.udfs.delete(hand.id);
    }
  });

  it("WHEN rolled back to the first deployment THEN the earlier body goes straight to the live UDF, without a candidate or today's tests", async () => {
    const [before] = await greet();
    const r = await cli("rollback", dir, "--to", "1", "--auto-approve", "--outputs", outputsFileOf(dir));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("candidate test:");
    const [after] = await greet();
    expect(after!.id).toBe(before!.id);
    expect(after!.udf_body).toContain('\\"version\\": 2');
  });

  it("WHEN destroy runs while a stopped apply's candidate is noted THEN the candidate goes with the rest", async () => {
    const [live] = await greet();
    const left = await fx.user.udfs.create({ slug: "svc-candidate-leftover01", udf_body: live!.udf_body });
    writeFileSync(
      note(),
      JSON.stringify({
        version: 1,
        candidates: [{ address: "udf.checks/greet", slug: left.slug, id: left.id, since: "2026-11-27T00:00:00.000Z" }],
      }),
    );
    const r = await cli("destroy", dir, "--auto-approve");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Removed the switch-over candidate ${left.slug} of udf.checks/greet`);
    expect(await candidates()).toEqual([]);
    expect(await greet()).toEqual([]);
    expect(existsSync(note())).toBe(false);
  });

  it("THEN no output held the secret value", () => {
    for (const text of printed) expect(text).not.toContain(SECRET);
  });
});

describe("GIVEN deploy: tested on a UDF without tests", () => {
  it("THEN validate refuses it at the deploy key, naming what is missing", async () => {
    const dir = copyRepo("udf-tests");
    writeFileSync(join(dir, "canvases/checks/untested.yaml"), "deploy: tested\n");
    const r = await runSvc(["validate", dir], { PATH: process.env.PATH ?? "", NO_COLOR: "1" });
    expect(r.code).toBe(1);
    expect(r.stderr + r.stdout).toContain("canvases/checks/untested.yaml:1:9");
    expect(r.stderr + r.stdout).toContain("found deploy: tested and no tests:");
  });
});
