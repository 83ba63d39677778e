/**
 * Secret fingerprints are keyed per project: a plan shows a changed passcode as two HMAC-SHA-256
 * fingerprints under the project's key (kept beside the inventory, mode 0600, never printed), so
 * nobody can test guesses against them; two projects show different fingerprints for the same
 * value, one project the same on every run. Inventories of older versions (key-less fingerprints)
 * migrate without a false "changed".
 */
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/canonical-json";
import { fingerprint } from "../../../src/kinds/fingerprint";
import { planCommand } from "../../../src/reconcile/commands";
import { renderPlanText, toJson } from "../../../src/reconcile/render";
import { startInjectingProxy } from "../../helpers/injecting-proxy";
import { runInProcess } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { copyRepo, emulatorEnv, FIXTURE_SECRETS, outputsFileOf, stateDirOf } from "../../helpers/repo";

const NEW_PASSCODE = "1234";

async function run(
  name: "plan" | "apply" | "drift",
  argv: string[],
  env: Record<string, string>,
): Promise<{ code: number; out: string; err: string }> {
  const r = await runInProcess(name, argv, env);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

/** The two fingerprints of the passcode change in a plan's text. */
function passcodePrints(planText: string): [string, string] {
  const m = /passcode: \(secret changed, (\S+) → (\S+)\)/.exec(planText);
  expect(m, planText).not.toBeNull();
  return [m![1], m![2]];
}

/** The repository `dir` as another project (its own state folder, so its own key). */
function renameProject(dir: string, project: string): void {
  const file = join(dir, "svc.yaml");
  writeFileSync(file, readFileSync(file, "utf8").replace(/^project: listings$/m, `project: ${project}`));
}

const inventoryFile = (dir: string) => join(stateDirOf(dir), "inventory.json");
const readInventory = (dir: string) => JSON.parse(readFileSync(inventoryFile(dir), "utf8"));

describe("GIVEN the valid-full repository applied, then planned with a 4-digit passcode", () => {
  const fx = useEmulator();

  it("WHEN two projects and two runs plan the same change THEN the fingerprints are keyed: per project, stable per run, not computable from the value", async () => {
    const a = copyRepo("valid-full");
    const env = emulatorEnv(fx.emu);
    expect((await run("apply", [a, "--auto-approve", "--outputs", outputsFileOf(a)], env)).code).toBe(0);
    const changed = { ...env, LISTINGS_PASSCODE: NEW_PASSCODE };

    const first = await run("plan", [a], changed);
    const again = await run("plan", [a], changed);
    const [from, to] = passcodePrints(first.out);
    expect(from).toMatch(/^hmac-sha256:[0-9a-f]{12}$/);
    expect(to).toMatch(/^hmac-sha256:[0-9a-f]{12}$/);
    // The same project: the same fingerprints on every run, so "changed / unchanged" still reads.
    expect(passcodePrints(again.out)).toEqual([from, to]);

    // Not the key-less fingerprint a guess of the value would reproduce.
    for (const salt of ["Canvas:passcode"]) {
      for (const value of [NEW_PASSCODE, FIXTURE_SECRETS.LISTINGS_PASSCODE]) {
        const guess = fingerprint(value, salt).slice("sha256:".length);
        expect(first.out).not.toContain(guess);
      }
    }

    // Another project with the same values: other fingerprints.
    const b = copyRepo("valid-full");
    renameProject(b, "listings_b");
    const other = await run("plan", [b], changed);
    expect(other.code).toBe(0);
    const [fromB, toB] = passcodePrints(other.out);
    expect(fromB).toMatch(/^hmac-sha256:/);
    expect([fromB, toB]).not.toContain(from);
    expect([fromB, toB]).not.toContain(to);

    // The JSON plan carries the keyed fingerprints only.
    const json = JSON.parse((await run("plan", [a, "--json"], changed)).out);
    const field = json.actions.flatMap((x: any) => x.fields).find((f: any) => f.field === "passcode");
    expect([field.fromFingerprint, field.toFingerprint]).toEqual([from, to]);

    // The key: beside the inventory, readable by its owner only, never printed.
    const keyFile = join(stateDirOf(a), "fingerprint-key.json");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = JSON.parse(readFileSync(keyFile, "utf8")).key as string;
    expect(Buffer.from(key, "base64").length).toBe(32);
    for (const text of [
      first.out,
      first.err,
      again.out,
      other.out,
      JSON.stringify(json),
      readFileSync(inventoryFile(a), "utf8"),
    ])
      expect(text).not.toContain(key);
  });
});

describe("GIVEN the valid-full repository applied by an older version", () => {
  const fx = useEmulator();

  it("WHEN its inventory holds key-less fingerprints THEN the plan shows no change, a changed document still shows, and apply rewrites them keyed", async () => {
    const dir = copyRepo("valid-full");
    const env = emulatorEnv(fx.emu);
    expect((await run("apply", [dir, "--auto-approve", "--outputs", outputsFileOf(dir)], env)).code).toBe(0);
    const current = readInventory(dir);
    expect(current.objects["share.listings"].kept.tokenFingerprint).toMatch(/^hmac-sha256:/);
    expect(current.objects["bucket_policy.demo-bucket"].kept.policyFingerprint).toMatch(/^hmac-sha256:/);

    // As an older version wrote it: no key, key-less fingerprints of the same token and document.
    const token = (await fx.user.canvases.listExecEnv()).find((c) => c.name === "listings")!.share_token!;
    const policy = readFileSync(join(dir, "policies/demo-bucket.json"), "utf8");
    const old = structuredClone(current);
    old.objects["share.listings"].kept.tokenFingerprint = fingerprint(token, "svc-iac:token");
    old.objects["bucket_policy.demo-bucket"].kept.policyFingerprint = fingerprint(
      canonicalJson(JSON.parse(policy)),
      "BucketPolicy:policy",
    );
    old.objects["bucket_policy.archive-bucket"].kept.policyFingerprint = fingerprint(
      canonicalJson({ Version: "2012-10-17", Statement: [] }),
      "BucketPolicy:policy",
    );
    writeFileSync(inventoryFile(dir), JSON.stringify(old, null, 2));
    rmSync(join(stateDirOf(dir), "fingerprint-key.json"));

    const plan = await run("plan", [dir, "--detailed-exitcode"], env);
    // The document recorded for archive-bucket was another one: that still reads as a change.
    expect(plan.out).toMatch(/bucket_policy\.archive-bucket[\s\S]*policy[^\n]*changed since the last apply/);
    expect(plan.out).not.toMatch(/bucket_policy\.demo-bucket/);
    expect(plan.out).not.toMatch(/share\.listings/);

    expect((await run("apply", [dir, "--auto-approve", "--outputs", outputsFileOf(dir)], env)).code).toBe(0);
    const migrated = readInventory(dir).objects;
    expect(migrated["share.listings"].kept.tokenFingerprint).toMatch(/^hmac-sha256:[0-9a-f]{12}$/);
    expect(migrated["bucket_policy.demo-bucket"].kept.policyFingerprint).toMatch(/^hmac-sha256:[0-9a-f]{12}$/);
    expect(migrated["bucket_policy.archive-bucket"].kept.policyFingerprint).toMatch(/^hmac-sha256:[0-9a-f]{12}$/);
    expect((await run("plan", [dir, "--detailed-exitcode"], env)).code).toBe(0);
  });
});

describe("GIVEN a remote state the token may read but not write, holding no key yet", () => {
  const fx = useEmulator();

  it("WHEN a plan shows a changed passcode THEN it says why on stderr and shows the change with no fingerprint", async () => {
    const dir = copyRepo("valid-full");
    expect(
      (await run("apply", [dir, "--auto-approve", "--outputs", outputsFileOf(dir)], emulatorEnv(fx.emu))).code,
    ).toBe(0);
    const svc = join(dir, "svc.yaml");
    writeFileSync(
      svc,
      readFileSync(svc, "utf8").replace("state: .svc-iac/state\n", "state: s3://demo-bucket/read-only-state\n"),
    );
    const proxy = await startInjectingProxy(fx.emu.baseUrl);
    proxy.failWith(/^PUT \/files\/upload$/, "This token may not write here", 403);
    try {
      const log: string[] = [];
      const result = await planCommand({
        dir,
        env: emulatorEnv(fx.emu, { SVC_BASE_URL: proxy.url, LISTINGS_PASSCODE: NEW_PASSCODE }),
        log: (l) => log.push(l),
      });
      expect(result.exitCode).toBe(0);
      expect(log.join("\n")).toMatch(
        /Could not read or make the fingerprint key in s3:\/\/demo-bucket\/read-only-state\/listings\/default .*403.*shown without fingerprints/,
      );
      const plan = result.command === "plan" ? result.plan! : undefined;
      const text = renderPlanText(plan!);
      expect(text).toContain("passcode: (sensitive value changed)");
      expect(text).not.toMatch(/sha256/);
      expect(toJson(plan!)).not.toMatch(/Fingerprint/);
    } finally {
      await proxy.close();
    }
  });
});
