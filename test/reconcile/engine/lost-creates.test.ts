/**
 * Creates the plan knows to be new are sent without a look-up first; when their answers are lost
 * (the platform makes the object, the caller never hears), apply looks them up in a listing of the
 * canvas read after the loss, shared by every create lost before it started, and adopts them in
 * the same run.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, platformDuplicates, platformView, writeUdfs } from "../../helpers/repo";

const EXTRA = 40;
const LOST = 16;

/** Runs `body`, counting this process's requests by `METHOD /path` with ids folded. */
async function counting<T>(body: () => Promise<T>): Promise<{ result: T; routes: Map<string, number> }> {
  const routes = new Map<string, number>();
  const onCreate = ({ request }: { request: { method: string; path: string } }) => {
    const path = String(request.path)
      .split("?")[0]!
      .replace(/^.*?\/v1\//, "/")
      .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "{id}");
    routes.set(`${request.method} ${path}`, (routes.get(`${request.method} ${path}`) ?? 0) + 1);
  };
  subscribe("undici:request:create", onCreate as never);
  try {
    return { result: await body(), routes };
  } finally {
    unsubscribe("undici:request:create", onCreate as never);
  }
}

describe("GIVEN the answers to many UDF creates on one canvas are lost", () => {
  const fx = useEmulator();

  it("WHEN apply runs THEN it adopts every lost UDF in the same run, reading the canvas far fewer times than creates were lost, with nothing duplicated", async () => {
    const dir = copyRepo("valid-full");
    writeUdfs(dir, "listings", EXTRA);
    fx.emu.setFaults(`lost=1,methods=POST,paths=/udf/new,count=${LOST}`);
    const { result, routes } = await counting(() => applyCommand(commandOptions(dir, fx.emu)));
    expect(fx.emu.faults!.count).toBe(LOST);
    fx.emu.setFaults(undefined);
    expect(result.command === "apply" && result.message).toBeUndefined();
    expect(result.exitCode).toBe(0);
    // Every UDF create was sent once: none was retried blindly.
    expect(routes.get("POST /udf/new")).toBe(EXTRA + 3);
    const reads = routes.get("GET /collection/by-id/{id}") ?? 0;
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThan(LOST / 2);

    const view = await platformView(fx.user);
    expect(platformDuplicates(view)).toEqual([]);
    expect(view.udfs.length).toBe(EXTRA + 3);
    const plan = await planCommand(commandOptions(dir, fx.emu));
    expect(plan.command === "plan" && plan.plan?.actions).toEqual([]);
  });
});
