/**
 * `notify:` webhooks: the document each event sends (a `text` field chat webhooks take as it is),
 * bounded attempts that never throw, and the URL never printed nor a secret sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { notify, payloadOf } from "../../../src/reconcile/notify/webhooks";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

const message = {
  event: "drift_restored" as const,
  project: "listings",
  target: "prod",
  summary: "restored the repository's version of 1 object:",
  counts: { restored: 1 },
  addresses: ["canvas.reports"],
};

describe("GIVEN webhook receivers on this machine", () => {
  const receivers: WebhookReceiver[] = [];
  const start = async (mode: "ok" | "hang" | "fail" = "ok") => {
    const r = await startWebhookReceiver(mode);
    receivers.push(r);
    return r;
  };
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });

  it("WHEN an event is sent THEN only the webhooks that asked for it get one small JSON document with a text field and the run's link", async () => {
    const [wants, other] = [await start(), await start()];
    const sent = await notify(
      {
        targets: [
          { name: "chat", urlEnv: "CHAT_URL", events: ["drift_restored"] },
          { name: "ops", urlEnv: "OPS_URL", events: ["apply_failed"] },
        ],
        env: {
          CHAT_URL: wants.url,
          OPS_URL: other.url,
          GITHUB_SERVER_URL: "https://github.com",
          GITHUB_REPOSITORY: "acme/infra",
          GITHUB_RUN_ID: "42",
        },
        secrets: [],
      },
      message,
    );
    expect(sent).toEqual(["chat"]);
    expect(other.received).toEqual([]);
    expect(wants.received).toEqual([
      {
        text: "svc-iac listings (prod): restored the repository's version of 1 object: canvas.reports. https://github.com/acme/infra/actions/runs/42",
        version: 1,
        source: "svc-iac",
        event: "drift_restored",
        project: "listings",
        target: "prod",
        counts: { restored: 1 },
        addresses: ["canvas.reports"],
        addresses_total: 1,
        run_url: "https://github.com/acme/infra/actions/runs/42",
      },
    ]);
  });

  it("WHEN the webhook never answers THEN it is tried three times within the timeout each, the command goes on, and the warning names the webhook, not its URL", async () => {
    const hang = await start("hang");
    const log: string[] = [];
    const sent = await notify(
      {
        targets: [{ name: "chat", urlEnv: "CHAT_URL", events: ["drift_restored"] }],
        env: { CHAT_URL: hang.url },
        secrets: [],
        log: (l) => log.push(l),
        options: { timeoutMs: 150, retryDelayMs: 1 },
      },
      message,
    );
    expect(sent).toEqual([]);
    expect(hang.attempts()).toBe(3);
    expect(log).toEqual([
      "Notification drift_restored not sent to chat (CHAT_URL): no answer within 0.15 s; going on.",
    ]);
    expect(log.join("\n")).not.toContain("127.0.0.1");
  });

  it("WHEN the webhook answers 503 THEN it is retried twice; a variable that is not set is named and nothing is sent", async () => {
    const failing = await start("fail");
    const log: string[] = [];
    await notify(
      {
        targets: [
          { name: "chat", urlEnv: "CHAT_URL", events: ["drift_restored"] },
          { name: "unset", urlEnv: "UNSET_URL", events: ["drift_restored"] },
        ],
        env: { CHAT_URL: failing.url },
        secrets: [],
        log: (l) => log.push(l),
        options: { retryDelayMs: 1 },
      },
      message,
    );
    expect(failing.attempts()).toBe(3);
    expect(log.sort()).toEqual([
      "Notification drift_restored not sent to chat (CHAT_URL): HTTP 503; going on.",
      "Notification drift_restored not sent to unset: UNSET_URL is not set.",
    ]);
  });

  it("WHEN a secret value is in what would be sent THEN it is scrubbed from the document", async () => {
    const hook = await start();
    await notify(
      {
        targets: [{ name: "chat", urlEnv: "CHAT_URL", events: ["drift_restored"] }],
        env: { CHAT_URL: hook.url },
        secrets: ["s3cr3t-value-77"],
        options: { retryDelayMs: 1 },
      },
      { ...message, summary: "token s3cr3t-value-77 leaked", addresses: ["secret.s3cr3t-value-77"] },
    );
    expect(JSON.stringify(hook.received)).not.toContain("s3cr3t-value-77");
  });

  it("THEN a long list of addresses is cut to 50 in the document and 10 in the text", () => {
    const many = Array.from({ length: 60 }, (_, i) => `udf.c/u${i}`);
    const p = payloadOf({ ...message, addresses: many }, {});
    expect(p.addresses).toHaveLength(50);
    expect(p.addresses_total).toBe(60);
    expect(p.text).toContain("and 50 more.");
    expect(p.run_url).toBeUndefined();
  });
});
