/** What users read: the plan of a fresh repository as text and JSON (snapshots), and validation errors that stop every command before any request. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runReconcileCommand } from "../../../src/cli/reconcile-command";
import { planCommand } from "../../../src/reconcile/commands";
import type { Plan } from "../../../src/reconcile/plan/plan-model";
import { renderPlanText, toJson } from "../../../src/reconcile/render";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, FIXTURE_SECRETS } from "../../helpers/repo";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe("GIVEN the valid-full repository and an empty platform", () => {
  const fx = useEmulator();

  async function freshPlan(): Promise<Plan> {
    const r = await planCommand(commandOptions(copyRepo("valid-full"), fx.emu));
    if (r.command !== "plan" || !r.plan) throw new Error(JSON.stringify(r));
    return r.plan;
  }

  it("WHEN planned twice THEN the text and the JSON are identical, carry no platform id, and match the snapshots", async () => {
    const [a, b] = [await freshPlan(), await freshPlan()];
    const text = renderPlanText(a, { color: false });
    const json = toJson(a);
    expect(renderPlanText(b, { color: false })).toBe(text);
    expect(toJson(b)).toBe(json);
    expect(a.actions.every((x) => x.action === "create" || x.action === "share")).toBe(true);
    expect(text).not.toMatch(UUID);
    expect(json).not.toMatch(UUID);
    for (const secret of Object.values(FIXTURE_SECRETS)) expect(text + json).not.toContain(secret);
    expect(text).toMatchSnapshot("plan text");
    expect(json).toMatchSnapshot("plan json");
  });
});

/** An HTTP server that counts requests: the platform a failing validation must never reach. */
function countingServer(): { server: Server; url: () => string; count: () => number } {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    res.writeHead(500).end();
  });
  return { server, url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, count: () => n };
}

function capture() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on("data", (c) => out.push(String(c)));
  stderr.on("data", (c) => err.push(String(c)));
  return { stdout, stderr, text: () => ({ stdout: out.join(""), stderr: err.join("") }) };
}

describe("GIVEN the error-many repository", () => {
  const platform = countingServer();
  beforeAll(() => new Promise<void>((r) => platform.server.listen(0, "127.0.0.1", r)));
  afterAll(() => new Promise<void>((r) => platform.server.close(() => r())));

  let validateLines: string[] | undefined;

  for (const command of ["validate", "plan", "apply", "drift"] as const) {
    it(`WHEN ${command} runs through the CLI THEN it prints file:line:column errors on stderr, exits 1, and sends nothing`, async () => {
      const dir = copyRepo("error-many");
      const io = capture();
      const argv = command === "apply" ? [dir, "--auto-approve"] : [dir];
      const env = { SVC_BASE_URL: platform.url(), SVC_TOKEN: "user-token-never-sent", ...FIXTURE_SECRETS };
      const code = await runReconcileCommand(command, argv, {
        stdout: io.stdout,
        stderr: io.stderr,
        stdin: new PassThrough(),
        env,
      });
      const { stdout, stderr } = io.text();
      expect(code).toBe(1);
      expect(platform.count()).toBe(0);
      expect(stdout).toBe("");
      // Files are named from where the command runs (DIR joined): the snapshot holds them from DIR.
      const lines = stderr.replaceAll(`${dir}/`, "").trimEnd().split("\n");
      const errorLines = lines.slice(0, -1);
      expect(errorLines.length).toBeGreaterThan(5);
      for (const line of errorLines) expect(line).toMatch(/^[\w./-]+:\d+:\d+: \S/);
      expect(lines.at(-1)).toMatch(/^\d+ errors in .*; nothing was sent to the platform\.$/);
      expect(stderr).not.toContain("hunter2-literal-passcode");
      expect(stderr).not.toContain("sk-live-literal-value");
      // Every command stops at the same errors as validate.
      if (command === "validate") {
        validateLines = errorLines;
        expect(errorLines.join("\n")).toMatchSnapshot("error lines");
      } else {
        expect(errorLines).toEqual(validateLines);
      }
    });
  }
});
