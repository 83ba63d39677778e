/**
 * The platform's own git layout (`<Canvas>/collection.json`, `<Canvas>/<record>/meta.json` beside
 * its code and helper modules), read as it is: the same objects as svc-iac's layout, metadata and
 * code byte for byte; errors at the meta.json, collection.json or source file, line and column.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyCommand, driftCommand, planCommand, validateCommand } from "../../../src/reconcile/commands";
import { destroyCommand } from "../../../src/reconcile/commands/destroy";
import { importCommand } from "../../../src/reconcile/commands/import";
import { actionsOf, runSvc } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, emulatorEnv, filesOf, platformView } from "../../helpers/repo";

const FIXTURE = "platform-layout";
const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");
const udfOf = (dir: string, meta: string) =>
  (JSON.parse(read(dir, meta)) as { job_config: { steps: { udf: Record<string, unknown> }[] } }).job_config.steps[0]!
    .udf;

describe("GIVEN a repository in the platform's own git layout: two canvases, a UDF with a helper module, one with inline code, a note, a widget, READMEs, and two UDFs without a canvas (one with a helper module)", () => {
  const fx = useEmulator();

  it("WHEN validated, applied, planned again, drifted, imported with --layout platform into an empty folder and destroyed THEN it deploys as it is, plans empty, drifts clean, imports to equal files that plan empty, and destroy removes exactly it", async () => {
    const dir = copyRepo(FIXTURE);
    const opts = commandOptions(dir, fx.emu);
    expect((await validateCommand({ dir, env: {} })).exitCode).toBe(0);
    const planned = await planCommand(opts);
    expect(actionsOf(planned).sort()).toEqual([
      "create canvas.Maps",
      "create canvas.Sales",
      "create note.Sales/intro",
      "create udf.Maps/count_rows",
      "create udf.Sales/load_listings",
      "create udf.geo_lookup",
      "create udf.ping",
      "create widget.Maps/rows_chart",
    ]);
    const before = await platformView(fx.user);
    const applied = await applyCommand(opts);
    expect(applied.exitCode).toBe(0);

    const view = await platformView(fx.user);
    const sales = view.canvases.find((c) => c.name === "Sales")!;
    expect(sales.dashboard_body).toBe(
      (JSON.parse(read(dir, "Sales/collection.json")) as { dashboard_body: string }).dashboard_body,
    );
    const made = view.udfs.filter((u) => !before.udfs.some((b) => b.id === u.id));
    const records = new Map(
      made.map((u) => [
        `${u.collection_name ?? "(no canvas)"}/${u.slug}`,
        JSON.parse(u.udf_body) as Record<string, unknown>,
      ]),
    );
    expect([...records.keys()].sort()).toEqual([
      "(no canvas)/geo_lookup",
      "(no canvas)/ping",
      "Maps/count_rows",
      "Maps/rows_chart",
      "Sales/intro",
      "Sales/load_listings",
    ]);
    // UDFs without a canvas are created without collection_id.
    expect(
      made
        .filter((u) => u.collection_id === null)
        .map((u) => u.slug)
        .sort(),
    ).toEqual(["geo_lookup", "ping"]);
    // Code from `source` (no final newline, `${` kept), from inline `code`; the helper from `headers`.
    const load = records.get("Sales/load_listings")!;
    expect(load.code).toBe(read(dir, "Sales/load_listings/load_listings.py"));
    expect(load.code).toContain("${city}");
    expect(load.headers).toEqual([
      { module_name: "utils", source_file: "utils.py", source_code: read(dir, "Sales/load_listings/utils.py") },
    ]);
    expect(load.metadata).toEqual(udfOf(dir, "Sales/load_listings/meta.json").metadata);
    const count = records.get("Maps/count_rows")!;
    expect(count.code).toBe(udfOf(dir, "Maps/count_rows/meta.json").code);
    expect(count.metadata).toEqual(udfOf(dir, "Maps/count_rows/meta.json").metadata);
    expect(records.get("Sales/intro")!.code).toBe("## 1 - Load data in Python\n\nPick a `${city}`.");
    expect(records.get("Sales/intro")!.metadata).toEqual(udfOf(dir, "Sales/intro_note/meta.json").metadata);
    expect(records.get("Maps/rows_chart")!.code).toBe(read(dir, "Maps/rows_chart/rows_chart.json"));
    expect(records.get("Maps/rows_chart")!.metadata).toEqual(udfOf(dir, "Maps/rows_chart/meta.json").metadata);
    const geo = records.get("(no canvas)/geo_lookup")!;
    expect(geo.code).toBe(read(dir, "library/geo_lookup/geo_lookup.py"));
    expect(geo.headers).toEqual([
      { module_name: "geo", source_file: "geo.py", source_code: read(dir, "library/geo_lookup/geo.py") },
    ]);
    expect(geo.metadata).toEqual(udfOf(dir, "library/geo_lookup/meta.json").metadata);
    expect(records.get("(no canvas)/ping")!.code).toBe(udfOf(dir, "ping/meta.json").code);

    const again = await planCommand({ ...opts, detailedExitCode: true });
    expect(actionsOf(again)).toEqual([]);
    expect(again.exitCode).toBe(0);
    expect((await driftCommand(opts)).exitCode).toBe(0);

    // The same team imported into an empty folder, in the platform's layout.
    const into = join(mkdtempSync(join(tmpdir(), "svc-platform-layout-")), "imported");
    const env = emulatorEnv(fx.emu);
    const imported = await importCommand({
      dir: into,
      env,
      layout: "platform",
      select: { canvases: "all", cronjobs: true, secrets: true, serviceAccounts: true, canvaslessUdfs: true },
    });
    expect(imported.exitCode).toBe(0);
    expect(imported.report!.skipped).toEqual([]);
    expect(imported.report!.notes).toEqual([]);
    const files = filesOf(into);
    const jsonFiles = (d: Record<string, string>) => Object.keys(d).filter((f) => f.endsWith(".json"));
    // Every collection.json and meta.json equal to the original as JSON values, where the code lives set aside.
    const normal = (d: string, file: string) => {
      const value = JSON.parse(read(d, file)) as Record<string, unknown>;
      if (!file.endsWith("meta.json")) return value;
      const udf = udfOf(d, file);
      const folder = file.slice(0, file.lastIndexOf("/"));
      const { source, code, ...rest } = udf;
      const text = typeof source === "string" ? read(d, `${folder}/${source}`) : code;
      const helpers = (udf.headers as { module_name: string; source_file: string }[]).map((h) => [
        h.module_name,
        read(d, `${folder}/${h.source_file}`),
      ]);
      return { ...value, job_config: "(compared below)", udf: rest, text, helpers };
    };
    const bySlug = (d: string, list: string[]) =>
      new Map(
        list
          .filter((f) => f.endsWith("collection.json") || f.endsWith("meta.json"))
          .map((f) => [
            f.endsWith("collection.json")
              ? `canvas ${(normal(d, f) as { name: string }).name}`
              : `${f.split("/").length > 2 && !f.startsWith("udfs/") && !f.startsWith("library/") ? f.split("/")[0] : "-"} ${udfOf(d, f).name}`,
            normal(d, f),
          ]),
      );
    const originals = bySlug(dir, jsonFiles(filesOf(dir)));
    const written = bySlug(into, jsonFiles(files));
    expect([...written.keys()].sort()).toEqual([...originals.keys()].sort());
    for (const [k, v] of originals) expect(written.get(k), k).toEqual(v);
    expect(
      jsonFiles(files)
        .filter((f) => f.startsWith("udfs/"))
        .sort(),
    ).toEqual(["udfs/geo_lookup/meta.json", "udfs/ping/meta.json"]);
    expect((await validateCommand({ dir: into, env })).exitCode).toBe(0);
    const importedPlan = await planCommand({ dir: into, env, detailedExitCode: true });
    expect(actionsOf(importedPlan)).toEqual([]);
    expect(importedPlan.exitCode).toBe(0);

    const destroyed = await destroyCommand({ ...opts, confirm: async () => true });
    expect(destroyed.exitCode).toBe(0);
    const after = await platformView(fx.user);
    expect(after.canvases.map((c) => c.id).sort()).toEqual(before.canvases.map((c) => c.id).sort());
    expect(after.udfs.map((u) => u.id).sort()).toEqual(before.udfs.map((u) => u.id).sort());
  });
});

describe("GIVEN canvases deployed from the platform's layout", () => {
  const fx = useEmulator();

  it("WHEN imported with --layout platform into an empty folder THEN the files equal the originals as JSON values (code in source files) and the import plans empty", async () => {
    const dir = copyRepo(FIXTURE);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const into = join(mkdtempSync(join(tmpdir(), "svc-platform-layout-")), "imported");
    const env = emulatorEnv(fx.emu);
    const imported = await importCommand({
      dir: into,
      env,
      layout: "platform",
      select: { canvases: ["Sales", "Maps"], cronjobs: false, secrets: false, serviceAccounts: false },
    });
    expect(imported.exitCode).toBe(0);
    expect(imported.report!.skipped).toEqual([]);
    expect(imported.report!.notes).toEqual([]);
    const files = filesOf(into);
    expect(
      Object.keys(files)
        .filter((f) => f.endsWith(".json") || f.endsWith(".py") || f.endsWith(".md"))
        .sort(),
    ).toEqual([
      "Maps/collection.json",
      "Maps/count_rows/count_rows.py",
      "Maps/count_rows/meta.json",
      "Maps/rows_chart/meta.json",
      "Maps/rows_chart/rows_chart.json",
      "Sales/collection.json",
      "Sales/intro/intro.md",
      "Sales/intro/meta.json",
      "Sales/load_listings/load_listings.py",
      "Sales/load_listings/meta.json",
      "Sales/load_listings/utils.py",
    ]);
    for (const c of ["Sales", "Maps"])
      expect(JSON.parse(files[`${c}/collection.json`]!)).toEqual(JSON.parse(read(dir, `${c}/collection.json`)));
    // Records: equal as JSON values, where the code lives set aside; the code itself byte for byte.
    const originals: [string, string][] = [
      ["Sales/load_listings", "Sales/load_listings"],
      ["Sales/intro", "Sales/intro_note"],
      ["Maps/count_rows", "Maps/count_rows"],
      ["Maps/rows_chart", "Maps/rows_chart"],
    ];
    for (const [to, from] of originals) {
      const mine = udfOf(into, `${to}/meta.json`);
      const theirs = udfOf(dir, `${from}/meta.json`);
      const codeOf = (d: string, folder: string, u: Record<string, unknown>) =>
        typeof u.source === "string" ? read(d, `${folder}/${u.source}`) : u.code;
      expect(codeOf(into, to, mine)).toBe(codeOf(dir, from, theirs));
      const { source: _a, code: _b, ...restMine } = mine;
      const { source: _c, code: _d, ...restTheirs } = theirs;
      expect(restMine).toEqual(restTheirs);
    }
    expect(files["Sales/load_listings/utils.py"]).toBe(read(dir, "Sales/load_listings/utils.py"));
    expect((await validateCommand({ dir: into, env })).exitCode).toBe(0);
    const again = await planCommand({ dir: into, env, detailedExitCode: true });
    expect(actionsOf(again)).toEqual([]);
    expect(again.exitCode).toBe(0);
  });

  it("WHEN --layout names another layout THEN import refuses it before any request", async () => {
    const into = join(mkdtempSync(join(tmpdir(), "svc-platform-layout-")), "imported");
    const r = await runSvc(["import", into, "--all", "--layout", "github"], {
      ...emulatorEnv(fx.emu),
      SVC_BASE_URL: "http://127.0.0.1:9",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Unknown --layout "github"');
    expect(r.stderr).not.toContain("127.0.0.1:9");
  });
});

describe("GIVEN the platform's layout written wrong", () => {
  const repoWith = (files: Record<string, string>) => {
    const dir = copyRepo(FIXTURE);
    for (const [f, text] of Object.entries(files)) {
      if (text === "") rmSync(join(dir, f));
      else {
        mkdirSync(join(dir, f, ".."), { recursive: true });
        writeFileSync(join(dir, f), text);
      }
    }
    return dir;
  };
  const errorsOf = async (dir: string) => {
    const r = await validateCommand({ dir, env: {} });
    expect(r.exitCode).toBe(1);
    return r.errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`);
  };
  const meta = (udf: Record<string, unknown>) =>
    JSON.stringify({ version: "0.0.3", job_config: { steps: [{ type: "udf", udf }] } }, null, 2);

  it("WHEN meta.json is not JSON THEN validate names it at the line and column", async () => {
    const errors = await errorsOf(
      repoWith({ "Maps/count_rows/meta.json": '{\n  "version": "0.0.3",\n  "job_config": {steps: []}\n}\n' }),
    );
    expect(errors).toEqual([
      expect.stringMatching(/^Maps\/count_rows\/meta\.json:3:18: found "s", expected a member name/),
    ]);
  });

  it("WHEN a record has no name, or names a source file that does not exist THEN the error is at that field of meta.json", async () => {
    const errors = await errorsOf(
      repoWith({
        "Maps/count_rows/meta.json": meta({ entrypoint: "udf", code: "def udf():\n    return 1\n" }),
        "Sales/load_listings/meta.json": meta({ name: "load_listings", source: "gone.py" }),
      }),
    );
    expect(errors).toEqual([
      expect.stringMatching(/^Maps\/count_rows\/meta\.json:7:16: missing name, expected the record's slug/),
      expect.stringMatching(
        /^Sales\/load_listings\/meta\.json:9:21: found "gone\.py", expected an existing file: Sales\/load_listings\/gone\.py does not exist/,
      ),
    ]);
  });

  it("WHEN a widget's source file is not JSON THEN validate names the source file at the line and column", async () => {
    const errors = await errorsOf(
      repoWith({ "Maps/rows_chart/rows_chart.json": '{"type": "scatter-chart",\n "props": }' }),
    );
    expect(errors).toEqual([
      expect.stringMatching(/^Maps\/rows_chart\/rows_chart\.json:2:11: found "}".*a widget's code is a JSON document/),
    ]);
  });

  it("WHEN two records share a slug, two canvases a name, or one canvas is in both layouts THEN each is refused naming both files", async () => {
    const dir = repoWith({
      "Sales/copy/meta.json": read(copyRepo(FIXTURE), "Sales/intro_note/meta.json"),
      "Sales/copy/intro.md": "## again",
      "More/collection.json": JSON.stringify({ version: "1.0.0", name: "Maps" }),
      "canvases/Sales/canvas.yaml": "{}\n",
    });
    const errors = await errorsOf(dir);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^More\/collection\.json:1:\d+: found a second canvas named "Maps".*Maps\/collection\.json declares it/,
        ),
        expect.stringMatching(
          /^Sales\/intro_note\/meta\.json:\d+:\d+: found a second record named "intro" on canvas "Sales".*Sales\/copy\/meta\.json declares it/,
        ),
        expect.stringMatching(
          /^Sales\/collection\.json:\d+:\d+: duplicate canvas\.Sales: already declared at canvases\/Sales\/canvas\.yaml/,
        ),
      ]),
    );
    expect(errors).toHaveLength(3);
  });

  it("WHEN a folder is a link leaving the repository THEN it is not searched, and the repository validates", async () => {
    const dir = copyRepo(FIXTURE);
    const outside = mkdtempSync(join(tmpdir(), "svc-outside-"));
    cpSync(join(dir, "Maps"), join(outside, "Maps"), { recursive: true });
    symlinkSync(outside, join(dir, "elsewhere"));
    expect((await validateCommand({ dir, env: {} })).exitCode).toBe(0);
  });

  it("WHEN two UDFs without a canvas share a slug, or a note stands outside any canvas THEN each is refused naming the files", async () => {
    const dir = copyRepo(FIXTURE);
    cpSync(join(dir, "ping"), join(dir, "loose/ping"), { recursive: true });
    cpSync(join(dir, "Sales/intro_note"), join(dir, "loose/intro_note"), { recursive: true });
    const errors = await errorsOf(dir);
    expect(errors).toEqual([
      expect.stringMatching(
        /^loose\/intro_note\/meta\.json:\d+:\d+: found a note .* outside any canvas, expected it in a sub-folder of a canvas folder/,
      ),
      expect.stringMatching(
        /^ping\/meta\.json:\d+:\d+: found a second UDF without a canvas with slug "ping".*loose\/ping\/meta\.json declares it already/,
      ),
    ]);
  });
});
