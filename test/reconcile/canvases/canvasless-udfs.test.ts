/**
 * UDFs without a canvas (`collection_id` null): `udfs/<slug>.py` with an optional `udfs/<slug>.yaml`,
 * addressed `udf.<slug>`. Created without `collection_id`, planned, applied, drifted, run, tested,
 * shown, pruned (only what the inventory records), forgotten and imported like any UDF; observed
 * by id once recorded and by slug while only declared, never by listing every UDF.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runForgetCommand } from "../../../src/cli/forget-command";
import { runRunCommand } from "../../../src/cli/run-command";
import { runShowCommand } from "../../../src/cli/show-command";
import { runTestCommand } from "../../../src/cli/test-command";
import { applyCommand, driftCommand, planCommand, validateCommand } from "../../../src/reconcile/commands";
import { destroyCommand } from "../../../src/reconcile/commands/destroy";
import { importCommand } from "../../../src/reconcile/commands/import";
import { actionsOf, planOf, runCaptured, runImportInProcess, runInProcess } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { type InjectingProxy, startInjectingProxy } from "../../helpers/injecting-proxy";
import { commandOptions, copyRepo, emulatorEnv, filesOf, platformView } from "../../helpers/repo";

const FIXTURE = "canvasless-udfs";
const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");
const body = (slug: string, code: string) =>
  JSON.stringify({ name: slug, type: "geopandas_v2", entrypoint: "udf", code, headers: [], metadata: {} });

/** The UDFs without a canvas on the platform, by slug. */
async function canvasless(fx: ReturnType<typeof useEmulator>) {
  const view = await platformView(fx.user);
  return new Map(view.udfs.filter((u) => u.collection_id === null).map((u) => [u.slug, u]));
}

describe("GIVEN a repository with two UDFs without a canvas (one with a helper module, metadata and tests) beside a canvas", () => {
  const fx = useEmulator();

  it("WHEN applied THEN they are created without collection_id, byte for byte; a second plan and drift are clean; run, test and show work on udf.<slug>; an edit is an update with its diff; destroy removes exactly them", async () => {
    const dir = copyRepo(FIXTURE);
    const opts = commandOptions(dir, fx.emu);
    const env = emulatorEnv(fx.emu);
    expect((await validateCommand({ dir, env: {} })).exitCode).toBe(0);
    expect(actionsOf(await planCommand(opts)).sort()).toEqual([
      "create canvas.board",
      "create udf.board/load",
      "create udf.hello",
      "create udf.ping",
    ]);
    const before = await platformView(fx.user);
    expect((await applyCommand(opts)).exitCode).toBe(0);
    const loose = await canvasless(fx);
    expect([...loose.keys()].sort()).toEqual(["hello", "ping"]);
    const hello = JSON.parse(loose.get("hello")!.udf_body) as Record<string, unknown>;
    expect(hello.code).toBe(read(dir, "udfs/hello.py"));
    expect(hello.metadata).toEqual({ "fused:description": "Greets, on no canvas" });
    expect(hello.headers).toEqual([
      { module_name: "greet", source_file: "greet.py", source_code: read(dir, "udfs/lib/greet.py") },
    ]);
    expect(JSON.parse(loose.get("ping")!.udf_body).code).toBe(read(dir, "udfs/ping.py"));

    const again = await planCommand({ ...opts, detailedExitCode: true });
    expect(actionsOf(again)).toEqual([]);
    expect(again.exitCode).toBe(0);
    expect((await driftCommand(opts)).exitCode).toBe(0);

    const ran = await runCaptured(runRunCommand, ["udf.hello", dir, "--param", "name=ada"], env);
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("hello ada");
    const tested = await runCaptured(runTestCommand, [dir], env);
    expect(tested.stdout).toContain("udf.hello");
    expect(tested.code).toBe(0);
    const shown = await runCaptured(runShowCommand, [dir], env);
    expect(shown.code).toBe(0);
    for (const a of ["udf.hello", "udf.ping", "udf.board/load"]) expect(shown.stdout).toContain(a);

    writeFileSync(join(dir, "udfs/ping.py"), '@fused.udf\ndef udf():\n    return {"pong": 2}\n');
    const edited = await runInProcess("plan", [dir], env);
    expect(edited.stdout).toContain("~ update   udf.ping");
    expect(edited.stdout).toContain('+    return {"pong": 2}');
    const applied = await applyCommand(opts);
    expect(actionsOf(applied)).toEqual(["update udf.ping"]);
    expect((await canvasless(fx)).get("ping")!.id).toBe(loose.get("ping")!.id);

    const destroyed = await destroyCommand({ ...opts, confirm: async () => true });
    expect(destroyed.exitCode).toBe(0);
    const after = await platformView(fx.user);
    expect(after.udfs.map((u) => u.id).sort()).toEqual(before.udfs.map((u) => u.id).sort());
  });

  it("WHEN a UDF without a canvas is made by hand, one is removed from the files, one forgotten THEN prune deletes only the recorded one, never the one made by hand, and import udf.<slug> takes the forgotten one back", async () => {
    const dir = copyRepo(FIXTURE);
    const opts = commandOptions(dir, fx.emu);
    const env = emulatorEnv(fx.emu);
    expect((await applyCommand(opts)).exitCode).toBe(0);
    const stranger = await fx.user.udfs.create({ slug: "by_hand", udf_body: body("by_hand", "def udf(): return 1") });
    expect(stranger.collection_id).toBeNull();

    rmSync(join(dir, "udfs/ping.py"));
    const plan = planOf(await planCommand({ ...opts, prune: true }));
    expect(plan.actions.map((a) => `${a.action} ${a.address}`)).toEqual(["delete udf.ping"]);
    expect(plan.unmanaged.map((u) => u.address)).toEqual([]);
    expect(actionsOf(await applyCommand({ ...opts, prune: true }))).toEqual(["delete udf.ping"]);
    const left = await canvasless(fx);
    expect([...left.keys()].sort()).toEqual(["by_hand", "hello"]);

    const helloId = left.get("hello")!.id;
    rmSync(join(dir, "udfs/hello.py"));
    rmSync(join(dir, "udfs/hello.yaml"));
    const forgot = await runCaptured(runForgetCommand, [dir, "udf.hello"], env);
    expect(forgot.code).toBe(0);
    expect(actionsOf(await planCommand({ ...opts, prune: true }))).toEqual([]);
    expect((await canvasless(fx)).get("hello")!.id).toBe(helloId);

    const imported = await runImportInProcess(["udf.hello", dir], env);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expect(read(dir, "udfs/hello.py")).toBe(read(copyRepo(FIXTURE), "udfs/hello.py"));
    expect(read(dir, "udfs/lib/hello/greet.py")).toBe(read(copyRepo(FIXTURE), "udfs/lib/greet.py"));
    const back = await planCommand({ ...opts, prune: true, detailedExitCode: true });
    expect(actionsOf(back)).toEqual([]);
    expect(back.exitCode).toBe(0);
    await fx.user.udfs.delete(stranger.id);
    await destroyCommand({ ...opts, confirm: async () => true });
  });

  it("WHEN declared with a slug a UDF without a canvas already has THEN the plan adopts it (no second UDF), and import --all of the team writes udfs/ files that plan empty", async () => {
    const made = await fx.user.udfs.create({ slug: "ping", udf_body: body("ping", "def udf(): return 0") });
    const dir = copyRepo(FIXTURE);
    const opts = commandOptions(dir, fx.emu);
    expect(actionsOf(await planCommand(opts)).sort()).toEqual([
      "adopt udf.ping",
      "create canvas.board",
      "create udf.board/load",
      "create udf.hello",
    ]);
    expect((await applyCommand(opts)).exitCode).toBe(0);
    expect((await canvasless(fx)).get("ping")!.id).toBe(made.id);

    const into = join(mkdtempSync(join(tmpdir(), "svc-canvasless-")), "imported");
    const env = emulatorEnv(fx.emu);
    const imported = await importCommand({
      dir: into,
      env,
      select: { canvases: "all", cronjobs: true, secrets: true, serviceAccounts: true, canvaslessUdfs: true },
    });
    expect(imported.exitCode).toBe(0);
    expect(imported.report!.skipped).toEqual([]);
    const files = filesOf(into);
    expect(files["udfs/hello.py"]).toBe(read(dir, "udfs/hello.py"));
    expect(files["udfs/ping.py"]).toBe(read(dir, "udfs/ping.py"));
    expect(files["udfs/hello.yaml"]).toContain("fused:description: Greets, on no canvas");
    expect(files["udfs/lib/hello/greet.py"]).toBe(read(dir, "udfs/lib/greet.py"));
    expect(
      imported
        .report!.bound.map((b) => b.address)
        .filter((a) => a.startsWith("udf."))
        .sort(),
    ).toEqual(["udf.board/load", "udf.hello", "udf.ping"]);
    const plan = await planCommand({ dir: into, env, detailedExitCode: true });
    expect(actionsOf(plan)).toEqual([]);
    expect(plan.exitCode).toBe(0);
    await destroyCommand({ ...opts, confirm: async () => true });
  });
});

describe("GIVEN a UDF on a canvas applied, then its file moved to udfs/ with a moved: entry", () => {
  const fx = useEmulator();

  it("WHEN planned and applied THEN the same UDF is renamed off its canvas in place (collection_id null, same id), and the next plan is empty", async () => {
    const dir = copyRepo(FIXTURE);
    const opts = commandOptions(dir, fx.emu);
    expect((await applyCommand(opts)).exitCode).toBe(0);
    const before = (await platformView(fx.user)).udfs.find((u) => u.slug === "load" && u.collection_id !== null)!;
    writeFileSync(join(dir, "udfs/load.py"), read(dir, "canvases/board/load.py"));
    rmSync(join(dir, "canvases/board/load.py"));
    writeFileSync(
      join(dir, "svc.yaml"),
      `${read(dir, "svc.yaml")}moved:\n  - from: udf.board/load\n    to: udf.load\n`,
    );
    const plan = planOf(await planCommand(opts));
    expect(plan.actions.map((a) => `${a.action} ${a.address}`)).toEqual(["rename udf.load"]);
    expect(plan.actions[0]!.fields.find((f) => f.field === "canvasId")?.note).toBe(
      "takes the UDF off its canvas (collection_id null): a UDF without a canvas",
    );
    expect((await applyCommand(opts)).exitCode).toBe(0);
    const after = (await platformView(fx.user)).udfs.find((u) => u.id === before.id)!;
    expect(after.collection_id).toBeNull();
    const again = await planCommand({ ...opts, detailedExitCode: true });
    expect(actionsOf(again)).toEqual([]);
    await destroyCommand({ ...opts, confirm: async () => true });
  });
});

describe("GIVEN the platform behind a proxy that records every request", () => {
  const fx = useEmulator();
  let proxy: InjectingProxy;
  beforeAll(async () => {
    proxy = await startInjectingProxy(fx.emu.baseUrl);
  });
  afterAll(() => proxy.close());
  const listings = () => proxy.answers.filter((a) => /^GET \/udf\/(self|exec-env\/self)$/.test(a.request));
  const lookups = () => proxy.answers.filter((a) => /^GET \/udf\/exec-env\/self\/by-slug\//.test(a.request));

  it("WHEN UDFs without a canvas are planned before and after their first apply THEN they are looked up by slug until recorded, then read by id; no plan lists every UDF", async () => {
    const dir = copyRepo(FIXTURE);
    const env = emulatorEnv(fx.emu, { SVC_BASE_URL: proxy.url });
    const opts = { ...commandOptions(dir, fx.emu), env };
    proxy.answers.length = 0;
    expect((await planCommand(opts)).exitCode).toBe(0);
    expect(
      lookups()
        .map((a) => a.request)
        .sort(),
    ).toEqual(["GET /udf/exec-env/self/by-slug/hello", "GET /udf/exec-env/self/by-slug/ping"]);
    expect((await applyCommand(opts)).exitCode).toBe(0);
    proxy.answers.length = 0;
    expect((await planCommand(opts)).exitCode).toBe(0);
    expect(lookups()).toEqual([]);
    expect(proxy.answers.filter((a) => /^GET \/udf\/by-id\//.test(a.request))).toHaveLength(2);
    expect(listings()).toEqual([]);
    await destroyCommand({ ...opts, confirm: async () => true });
  });

  it("WHEN a project has no UDF without a canvas THEN its plan makes no UDF look-up at all", async () => {
    const dir = copyRepo(FIXTURE);
    rmSync(join(dir, "udfs"), { recursive: true });
    const env = emulatorEnv(fx.emu, { SVC_BASE_URL: proxy.url });
    proxy.answers.length = 0;
    expect((await planCommand({ dir, env })).exitCode).toBe(0);
    expect(proxy.answers.filter((a) => a.request.startsWith("GET /udf/"))).toEqual([]);
  });
});

describe("GIVEN UDFs without a canvas written wrong", () => {
  const errorsOf = async (dir: string) => {
    const r = await validateCommand({ dir, env: {} });
    expect(r.exitCode).toBe(1);
    return r.errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`);
  };

  it("WHEN one slug is declared in both layouts, a note sits in udfs/, settings have no code or set a place on a canvas THEN each is refused at its file", async () => {
    const dir = copyRepo(FIXTURE);
    mkdirSync(join(dir, "elsewhere/ping"), { recursive: true });
    writeFileSync(
      join(dir, "elsewhere/ping/meta.json"),
      JSON.stringify({ version: "0.0.3", job_config: { steps: [{ type: "udf", udf: { name: "ping", code: "x" } }] } }),
    );
    writeFileSync(join(dir, "udfs/intro.md"), "# a note\n");
    writeFileSync(join(dir, "udfs/gone.yaml"), "metadata: {}\n");
    writeFileSync(join(dir, "udfs/hello.yaml"), "visible: false\n");
    const errors = await errorsOf(dir);
    expect(errors).toEqual([
      expect.stringMatching(
        /^elsewhere\/ping\/meta\.json:1:\d+: found a second UDF without a canvas with slug "ping".*udfs\/ping\.py declares it already/,
      ),
      expect.stringMatching(/^udfs\/gone\.yaml:1:1: found UDF settings without code: gone\.py does not exist/),
      expect.stringMatching(/^udfs\/hello\.yaml:1:1: .*visible/),
      expect.stringMatching(/^udfs\/intro\.md:1:1: found "intro\.md" in udfs\/, expected only UDFs/),
    ]);
  });
});
