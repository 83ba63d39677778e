/** apply tells the `notify:` webhooks: apply_succeeded when it changed something, apply_failed when it stopped. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyCommand } from "../../../src/reconcile/commands";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, FIXTURE_SECRETS } from "../../helpers/repo";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

describe("GIVEN a repository whose svc.yaml sends apply events to a webhook", () => {
  const fx = useEmulator();
  let hook: WebhookReceiver;
  let dir: string;
  const opts = (extra = {}) => {
    const o = commandOptions(dir, fx.emu, extra);
    return { ...o, env: { ...o.env, OPS_HOOK_URL: hook.url } };
  };

  beforeAll(async () => {
    hook = await startWebhookReceiver();
    dir = copyRepo("valid-full");
    writeFileSync(
      join(dir, "svc.yaml"),
      `${readFileSync(join(dir, "svc.yaml"), "utf8")}notify:\n  - name: ops\n    url_env: OPS_HOOK_URL\n    events: [apply_succeeded, apply_failed]\n`,
    );
  });
  afterAll(async () => {
    await hook?.close();
  });

  it("WHEN the first apply creates everything THEN one apply_succeeded names what it did, without a secret", async () => {
    expect((await applyCommand(opts())).exitCode).toBe(0);
    expect(hook.received.map((b) => b.event)).toEqual(["apply_succeeded"]);
    expect(hook.received[0]!.addresses).toEqual(expect.arrayContaining(["canvas.listings", "udf.listings/loader"]));
    const text = JSON.stringify(hook.received);
    for (const secret of Object.values(FIXTURE_SECRETS)) expect(text).not.toContain(secret);
  });

  it("WHEN an apply has nothing to do THEN no event is sent", async () => {
    expect((await applyCommand(opts())).exitCode).toBe(0);
    expect(hook.received).toHaveLength(1);
  });

  it("WHEN an apply stops (an --only that matches nothing) THEN apply_failed is sent and the apply's own exit code stays", async () => {
    const r = await applyCommand(opts({ only: ["nothing.matches"] }));
    expect(r.exitCode).toBe(1);
    expect(hook.received.map((b) => b.event)).toEqual(["apply_succeeded", "apply_failed"]);
  });
});
