/**
 * Per-record checks: `check: false` in a record's `<slug>.yaml`, or `checks.skip` in svc.yaml,
 * turns off that record's check alone (Python for a UDF, JSON for a widget); the plan lists what
 * is unchecked. A helper module the UDF's code never names is deployed even when it does not parse.
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyCommand, planCommand, validateCommand } from "../../../src/reconcile/commands";
import { planOf } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, platformView } from "../../helpers/repo";

const BOARD = "canvases/board";
/** Code the platform stores though Python 3 refuses it (a no-break space before the return). */
const NOT_PARSED = "@fused.udf\ndef udf():\n\u00a0   return 1\n";

const errorsOf = async (dir: string) =>
  (await validateCommand({ dir, env: {} })).errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`);

describe("GIVEN records whose code the local check refuses", () => {
  const fx = useEmulator();

  it("WHEN the UDF's settings say check: false THEN it validates, the plan lists it unchecked, and apply sends the code byte for byte", async () => {
    const dir = copyRepo("canvas-furniture");
    writeFileSync(join(dir, BOARD, "load.py"), NOT_PARSED);
    expect((await errorsOf(dir)).join("\n")).toContain(`${BOARD}/load.py:3:`);

    appendFileSync(join(dir, BOARD, "load.yaml"), "check: false\n");
    expect(await errorsOf(dir)).toEqual([]);
    const plan = planOf(await planCommand(commandOptions(dir, fx.emu)));
    expect(plan.warnings).toContain("Not checked (check: false, or checks.skip in svc.yaml): udf.board/load.");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const load = (await platformView(fx.user)).udfs.find((u) => u.collection_name === "board" && u.slug === "load")!;
    expect(JSON.parse(load.udf_body).code).toBe(NOT_PARSED);
  });

  it("WHEN svc.yaml's checks.skip names them by address or pattern THEN their files stay as they are and validate passes", async () => {
    const dir = copyRepo("canvas-furniture");
    writeFileSync(join(dir, BOARD, "load.py"), NOT_PARSED);
    writeFileSync(join(dir, BOARD, "chart.json"), '{"type": "scatter-chart", props: {}}');
    expect(await errorsOf(dir)).toHaveLength(2);

    appendFileSync(join(dir, "svc.yaml"), 'checks:\n  skip: [udf.board/load, "widget.board/*"]\n');
    expect(await errorsOf(dir)).toEqual([]);
    const plan = planOf(await planCommand(commandOptions(dir, fx.emu)));
    expect(plan.warnings).toContain(
      "Not checked (check: false, or checks.skip in svc.yaml): udf.board/load, widget.board/chart.",
    );
  });

  it("WHEN checks.skip holds something that is no record address THEN validate names the entry", async () => {
    const dir = copyRepo("canvas-furniture");
    appendFileSync(join(dir, "svc.yaml"), "checks:\n  skip:\n    - canvas.board\n");
    const errors = await errorsOf(dir);
    expect(errors).toEqual([
      expect.stringMatching(/^svc\.yaml:5:7: .*found "canvas\.board", expected the address of a UDF or widget/),
    ]);
  });

  it("WHEN a helper module that no code names does not parse THEN it is a warning, and once the UDF imports it an error", async () => {
    const dir = copyRepo("canvas-furniture");
    writeFileSync(join(dir, BOARD, "lib/legacy.py"), "def old(:\n    pass\n");
    appendFileSync(join(dir, BOARD, "load.yaml"), "  - module: legacy\n    file: lib/legacy.py\n");
    expect(await errorsOf(dir)).toEqual([]);
    const plan = planOf(await planCommand(commandOptions(dir, fx.emu)));
    expect(plan.warnings).toEqual([
      expect.stringMatching(
        /^canvases\/board\/lib\/legacy\.py:1:9: .*a helper module no UDF's code names, deployed as it is/,
      ),
    ]);

    const load = join(dir, BOARD, "load.py");
    writeFileSync(load, `import legacy\n${readFileSync(load, "utf8")}`);
    expect(await errorsOf(dir)).toEqual([expect.stringMatching(/^canvases\/board\/lib\/legacy\.py:1:9: /)]);
  });
});
