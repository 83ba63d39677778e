/** UDF visibility and order (`visible`, `position` in `<slug>.yaml`): set through the canvas without touching its other UDFs. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, platformView } from "../../helpers/repo";

const udfOf = async (fx: ReturnType<typeof useEmulator>, slug: string) =>
  (await platformView(fx.user)).udfs.find((u) => u.slug === slug && u.collection_name === "listings")!;

describe("GIVEN UDFs with visibility and order in their sidecar files", () => {
  const fx = useEmulator();

  it("WHEN applied and changed THEN the platform shows them, a hand-made UDF on the canvas survives, and the plan settles", async () => {
    const dir = copyRepo("valid-full");
    const loaderYaml = join(dir, "canvases/listings/loader.yaml");
    writeFileSync(
      loaderYaml,
      readFileSync(loaderYaml, "utf8").replace("visible: true\nposition: 0", "visible: false\nposition: 5"),
    );
    writeFileSync(join(dir, "canvases/listings/stats.yaml"), "position: 2\n");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);

    expect(await udfOf(fx, "loader")).toMatchObject({ is_visible: false, position: 5 });
    expect(await udfOf(fx, "stats")).toMatchObject({ position: 2 });
    const empty = await planCommand(commandOptions(dir, fx.emu));
    expect(empty.command === "plan" && empty.plan?.actions).toEqual([]);

    // Someone adds a UDF by hand; then the repository moves the loader.
    const canvas = (await platformView(fx.user)).canvases.find((c) => c.name === "listings")!;
    const byHand = await fx.user.udfs.create({
      slug: "by_hand",
      udf_body: JSON.stringify({ name: "by_hand", code: "" }),
      collection_id: canvas.id,
    });
    writeFileSync(loaderYaml, readFileSync(loaderYaml, "utf8").replace("position: 5", "position: 7"));
    const plan = await planCommand(commandOptions(dir, fx.emu));
    const actions = plan.command === "plan" ? plan.plan!.actions : [];
    expect(actions.map((a) => [a.action, a.address, a.fields.map((f) => [f.field, f.from, f.to])])).toEqual([
      ["update", "udf.listings/loader", [["position", 5, 7]]],
    ]);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);

    expect(await udfOf(fx, "loader")).toMatchObject({ is_visible: false, position: 7 });
    const kept = (await platformView(fx.user)).udfs.find((u) => u.id === byHand.id);
    expect(kept).toMatchObject({ slug: "by_hand", udf_body: byHand.udf_body });
    expect((await fx.user.udfs.getById(byHand.id)).position).toBe(byHand.position);
  });
});
