/**
 * Sticky notes (`<slug>.md`) and widgets (`<slug>.json`) as canvas members beside UDFs: on the
 * platform they are ordinary UDF records told apart by their metadata. Deployed, planned, drifted,
 * imported, pruned and destroyed like UDFs; never checked as Python; `run` refuses them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runForgetCommand } from "../../../src/cli/forget-command";
import { runRunCommand } from "../../../src/cli/run-command";
import { runShowCommand } from "../../../src/cli/show-command";
import { applyCommand, driftCommand, planCommand, validateCommand } from "../../../src/reconcile/commands";
import { destroyCommand } from "../../../src/reconcile/commands/destroy";
import { importCommand } from "../../../src/reconcile/commands/import";
import { actionsOf, planOf, runCaptured, runInProcess } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, emulatorEnv, filesOf, platformView } from "../../helpers/repo";

const FIXTURE = "canvas-furniture";
const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");

/** The records of canvas `board` as the platform holds them, by slug: code and metadata from the body. */
async function boardRecords(fx: ReturnType<typeof useEmulator>) {
  const view = await platformView(fx.user);
  const out = new Map<string, { id: string; code: string; metadata: Record<string, unknown> }>();
  for (const u of view.udfs.filter((x) => x.collection_name === "board")) {
    const body = JSON.parse(u.udf_body) as { code: string; metadata: Record<string, unknown> };
    out.set(u.slug, { id: u.id, code: body.code, metadata: body.metadata });
  }
  return out;
}

describe("GIVEN a canvas folder with a UDF, two notes (.md) and a widget (.json)", () => {
  const fx = useEmulator();

  it("WHEN applied THEN each is a UDF record with its metadata and code byte for byte; a second plan and drift are clean; destroy removes exactly them", async () => {
    const dir = copyRepo(FIXTURE);
    const opts = commandOptions(dir, fx.emu);
    const planned = await planCommand(opts);
    expect(actionsOf(planned).sort()).toEqual([
      "create canvas.board",
      "create note.board/intro",
      "create note.board/step_2",
      "create udf.board/load",
      "create widget.board/chart",
    ]);
    const applied = await applyCommand(opts);
    expect(applied.exitCode).toBe(0);

    const records = await boardRecords(fx);
    expect([...records.keys()].sort()).toEqual(["chart", "intro", "load", "step_2"]);
    // Markdown and JSON reach the platform as they are (no final newline, `${` kept).
    expect(records.get("step_2")!.code).toBe("## 2 - Draw it");
    expect(records.get("intro")!.code).toBe(read(dir, "canvases/board/intro.md"));
    expect(records.get("intro")!.code).toContain("${city}");
    expect(records.get("chart")!.code).toBe(read(dir, "canvases/board/chart.json"));
    expect(records.get("intro")!.metadata).toEqual({
      isNodeTemplate: true,
      nodeTemplateType: "textbox",
      nodeTemplateColor: "#ffd966",
      nodeTemplateScaleFactor: 1.5,
      stickyNoteVersion: 2,
    });
    expect(records.get("chart")!.metadata).toEqual({
      isNodeTemplate: true,
      nodeTemplateType: "json_ui",
      nodeDescription: "Rows as points",
    });
    expect(records.get("load")!.metadata).toEqual({ "fused:description": "Loads a few rows" });

    const again = await planCommand({ ...opts, detailedExitCode: true });
    expect(actionsOf(again)).toEqual([]);
    expect(again.exitCode).toBe(0);
    expect((await driftCommand(opts)).exitCode).toBe(0);

    // A note's text changed: the plan shows it as a text diff of the note, in place.
    writeFileSync(join(dir, "canvases/board/step_2.md"), "## 2 - Draw it\n\nWith colours.\n");
    const edited = await runInProcess("plan", [dir], emulatorEnv(fx.emu));
    expect(edited.stdout).toContain("~ update   note.board/step_2");
    expect(edited.stdout).toContain("+With colours.");
    expect((await applyCommand(opts)).exitCode).toBe(0);
    expect((await boardRecords(fx)).get("step_2")!.code).toBe("## 2 - Draw it\n\nWith colours.\n");

    const others = (await platformView(fx.user)).udfs.filter((u) => u.collection_name !== "board").map((u) => u.id);
    const destroyed = await destroyCommand({ ...opts, confirm: async () => true });
    expect(destroyed.exitCode).toBe(0);
    const after = await platformView(fx.user);
    expect(after.canvases.map((c) => c.name)).not.toContain("board");
    expect(after.udfs.map((u) => u.id).sort()).toEqual(others.sort());
  });

  it("WHEN a note's files are deleted THEN prune deletes exactly it; WHEN a widget is forgotten THEN it stays on the platform, unmanaged by nothing; show lists them", async () => {
    const dir = copyRepo(FIXTURE);
    const opts = commandOptions(dir, fx.emu);
    expect((await applyCommand(opts)).exitCode).toBe(0);
    const shown = await runCaptured(runShowCommand, [dir], emulatorEnv(fx.emu));
    expect(shown.code).toBe(0);
    for (const a of ["note.board/intro", "note.board/step_2", "widget.board/chart", "udf.board/load"])
      expect(shown.stdout).toContain(a);

    const before = await boardRecords(fx);
    rmSync(join(dir, "canvases/board/intro.md"));
    rmSync(join(dir, "canvases/board/intro.yaml"));
    const pruned = await applyCommand({ ...opts, prune: true });
    expect(actionsOf(pruned)).toEqual(["delete note.board/intro"]);
    expect([...(await boardRecords(fx)).keys()].sort()).toEqual(["chart", "load", "step_2"]);

    rmSync(join(dir, "canvases/board/chart.json"));
    rmSync(join(dir, "canvases/board/chart.yaml"));
    const forgot = await runCaptured(runForgetCommand, [dir, "widget.board/chart"], emulatorEnv(fx.emu));
    expect(forgot.stdout).toContain("widget.board/chart");
    expect(forgot.code).toBe(0);
    const after = await planCommand({ ...opts, prune: true, detailedExitCode: true });
    expect(actionsOf(after)).toEqual([]);
    expect((await boardRecords(fx)).get("chart")!.id).toBe(before.get("chart")!.id);
  });

  it("WHEN a note, a widget and a UDF are made by hand on the canvas THEN each is reported unmanaged under its own address, never as another", async () => {
    const dir = copyRepo(FIXTURE);
    const opts = commandOptions(dir, fx.emu);
    expect((await applyCommand(opts)).exitCode).toBe(0);
    const canvas = (await platformView(fx.user)).canvases.find((c) => c.name === "board")!;
    const body = (code: string, metadata: Record<string, unknown>) =>
      JSON.stringify({ name: "x", type: "geopandas_v2", entrypoint: "udf", code, headers: [], metadata });
    await fx.user.udfs.create({
      slug: "hand_note",
      udf_body: body("# by hand", { isNodeTemplate: true, nodeTemplateType: "textbox" }),
      collection_id: canvas.id,
    });
    await fx.user.udfs.create({
      slug: "hand_widget",
      udf_body: body("{}", { isNodeTemplate: true, nodeTemplateType: "json_ui" }),
      collection_id: canvas.id,
    });
    await fx.user.udfs.create({
      slug: "hand_udf",
      udf_body: body("def udf(): return 1", {}),
      collection_id: canvas.id,
    });

    const plan = planOf(await planCommand(opts));
    expect(plan.unmanaged.map((u) => u.address).sort()).toEqual([
      "note.board/hand_note",
      "udf.board/hand_udf",
      "widget.board/hand_widget",
    ]);
    const drift = await runInProcess("drift", [dir], emulatorEnv(fx.emu));
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain("note.board/hand_note");
    expect(drift.stdout).toContain("widget.board/hand_widget");
  });

  it("WHEN imported into an empty folder THEN the notes and widget are written as .md and .json equal to the originals, and the import plans empty", async () => {
    const dir = copyRepo(FIXTURE);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const into = join(mkdtempSync(join(tmpdir(), "svc-furniture-")), "imported");
    const env = emulatorEnv(fx.emu);
    const imported = await importCommand({
      dir: into,
      env,
      select: { canvases: ["board"], cronjobs: false, secrets: false, serviceAccounts: false },
    });
    expect(imported.message).toBeUndefined();
    expect(imported.exitCode).toBe(0);
    expect(imported.report!.skipped).toEqual([]);
    const files = filesOf(into);
    for (const f of ["intro.md", "step_2.md", "chart.json", "load.py", "lib/shapes.py"])
      expect(files[`canvases/board/${f}`]).toBe(read(dir, `canvases/board/${f}`));
    // The keys the extension implies are left out; the others kept key for key.
    expect(files["canvases/board/intro.yaml"]).not.toContain("isNodeTemplate");
    expect(files["canvases/board/intro.yaml"]).toContain("stickyNoteVersion: 2");
    expect(files["canvases/board/step_2.yaml"] ?? "").not.toContain("metadata");
    const plan = await planCommand({ dir: into, env, detailedExitCode: true });
    expect(actionsOf(plan)).toEqual([]);
    expect(plan.exitCode).toBe(0);
  });

  it("WHEN a widget on the platform holds no JSON document THEN import writes it as it is with check: false, says so, and the import validates", async () => {
    const dir = copyRepo(FIXTURE);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const canvas = (await platformView(fx.user)).canvases.find((c) => c.name === "board")!;
    await fx.user.udfs.create({
      slug: "broken_widget",
      udf_body: JSON.stringify({
        name: "broken_widget",
        type: "geopandas_v2",
        entrypoint: "udf",
        code: '{"type": "bar-chart",\n "props": }',
        headers: [],
        metadata: { isNodeTemplate: true, nodeTemplateType: "json_ui" },
      }),
      collection_id: canvas.id,
    });
    const into = join(mkdtempSync(join(tmpdir(), "svc-furniture-")), "imported");
    const env = emulatorEnv(fx.emu);
    const imported = await importCommand({
      dir: into,
      env,
      select: { canvases: ["board"], cronjobs: false, secrets: false, serviceAccounts: false },
    });
    expect(imported.exitCode).toBe(0);
    expect(imported.report!.skipped).toEqual([]);
    expect(imported.report!.notes).toContainEqual(
      expect.stringMatching(
        /^widget\.board\/broken_widget: its code is not a JSON document \(line 2, column 11: .*check: false/,
      ),
    );
    const files = filesOf(into);
    expect(files["canvases/board/broken_widget.json"]).toBe('{"type": "bar-chart",\n "props": }');
    expect(files["canvases/board/broken_widget.yaml"]).toContain("check: false");
    expect((await validateCommand({ dir: into, env })).exitCode).toBe(0);
    expect(actionsOf(await planCommand({ dir: into, env }))).toEqual([]);
  });

  it("WHEN run is asked to run a note or a widget THEN it refuses before any request", async () => {
    const dir = copyRepo(FIXTURE);
    // No platform answers at this address: a request would fail otherwise.
    const env = { ...emulatorEnv(fx.emu), SVC_BASE_URL: "http://127.0.0.1:9" };
    for (const [address, noun] of [
      ["note.board/intro", "note"],
      ["widget.board/chart", "widget"],
    ] as const) {
      const r = await runCaptured(runRunCommand, [address, dir], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${address} is a ${noun}, which cannot be run`);
      expect(r.stderr).toContain("Nothing was sent to the platform");
    }
  });
});

describe("GIVEN canvas folders with notes and widgets written wrong", () => {
  const repoWith = (files: Record<string, string>) => {
    const dir = copyRepo(FIXTURE);
    for (const [f, text] of Object.entries(files)) {
      if (text === "") rmSync(join(dir, f));
      else writeFileSync(join(dir, f), text);
    }
    return dir;
  };
  const errorsOf = async (dir: string) => {
    const r = await validateCommand({ dir, env: {} });
    expect(r.exitCode).toBe(1);
    return r.errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`);
  };

  it("WHEN a widget's code is not JSON THEN validate names the file at the line and column", async () => {
    const errors = await errorsOf(
      repoWith({ "canvases/board/chart.json": '{\n  "type": "scatter-chart",\n  "props": {x: 1}\n}\n' }),
    );
    expect(errors).toEqual([
      expect.stringMatching(
        /^canvases\/board\/chart\.json:3:13: found "x", expected a member name.*a widget's code is a JSON document/,
      ),
    ]);
  });

  it("WHEN a note's text is not Python THEN nothing checks it as Python", async () => {
    const dir = repoWith({ "canvases/board/intro.md": "def (\n  ¡not python: ${x}\n" });
    expect((await validateCommand({ dir, env: {} })).exitCode).toBe(0);
  });

  it("WHEN two records of the canvas have one slug THEN validate refuses the second naming both files", async () => {
    const errors = await errorsOf(repoWith({ "canvases/board/intro.py": "def udf():\n    return 1\n" }));
    expect(errors).toEqual([
      expect.stringContaining(
        'canvases/board/intro.py:1:1: found a second record with slug "intro", expected one file per slug: canvases/board/intro.md holds it already',
      ),
    ]);
  });

  it("WHEN a note's metadata says it is a widget, or a UDF's that it is a note THEN validate refuses it at the metadata", async () => {
    const errors = await errorsOf(
      repoWith({
        "canvases/board/intro.yaml": "metadata:\n  nodeTemplateType: json_ui\n",
        "canvases/board/load.yaml": "metadata:\n  isNodeTemplate: true\n  nodeTemplateType: textbox\n",
      }),
    );
    expect(errors).toEqual([
      expect.stringContaining(
        'canvases/board/intro.yaml:2:3: found nodeTemplateType: "json_ui", expected "textbox" or nothing',
      ),
      expect.stringContaining(
        'canvases/board/load.yaml:2:3: found isNodeTemplate: true with nodeTemplateType: "textbox", which makes the record a note',
      ),
    ]);
  });

  it("WHEN a note's settings hold a UDF's keys THEN validate names the key", async () => {
    const errors = await errorsOf(repoWith({ "canvases/board/intro.yaml": "entrypoint: main\n" }));
    expect(errors).toEqual([expect.stringMatching(/^canvases\/board\/intro\.yaml:1:1: .*entrypoint/)]);
  });

  it("WHEN settings have no record beside them THEN validate names the three files it looked for", async () => {
    const errors = await errorsOf(repoWith({ "canvases/board/gone.yaml": "metadata: {}\n" }));
    expect(errors).toEqual([
      expect.stringContaining("none of gone.py (a UDF), gone.md (a note) or gone.json (a widget)"),
    ]);
  });
});
