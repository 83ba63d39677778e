/**
 * Secrets never appear in output: every command through the CLI (text and JSON, stdout, stderr,
 * --out files), the inventory and the state folder are searched for the real secret values, the
 * service-account tokens, the share token, the per-UDF shared token and the user's token.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readOutputsFile } from "../../../src/reconcile/apply/outputs-file";
import { runInProcess } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { copyRepo, emulatorEnv, FIXTURE_SECRETS, outputsFileOf, platformView } from "../../helpers/repo";

const NEW_PASSCODE = "rotated-passcode-value-93c1d2";
const HAND_SECRET = "hand-set-secret-value-0a7e44";
const FAILED_PASSCODE = "never-applied-passcode-6f2b90";

type Name = "validate" | "plan" | "apply" | "drift";

/** Everything a run printed or wrote, in one list of named texts. */
const captured: { what: string; text: string }[] = [];

async function run(name: Name, argv: string[], env: Record<string, string>): Promise<number> {
  const { code, stdout: out, stderr: err } = await runInProcess(name, argv, env);
  captured.push(
    { what: `${name} ${argv.slice(1).join(" ")} stdout`, text: out },
    { what: `${name} ${argv.slice(1).join(" ")} stderr`, text: err },
  );
  return code;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe("GIVEN the valid-full repository applied, changed and checked through the CLI", () => {
  const fx = useEmulator();

  it("WHEN every command runs in text and JSON THEN no secret value, token or passcode appears in any output or state file", async () => {
    const dir = copyRepo("valid-full");
    const outputs = outputsFileOf(dir);
    const env = emulatorEnv(fx.emu);
    const out = (name: string) => join(dir, "..", name);

    expect(await run("validate", [dir], env)).toBe(0);
    expect(await run("validate", [dir, "--json"], env)).toBe(0);
    expect(await run("plan", [dir, "--out", out("plan.json")], env)).toBe(0);
    expect(await run("plan", [dir, "--json"], env)).toBe(0);
    expect(await run("apply", [dir, "--auto-approve", "--outputs", outputs], env)).toBe(0);
    expect(await run("drift", [dir, "--format", "json", "--out", out("drift0.json")], env)).toBe(0);

    // Out-of-band secret edit, and a new passcode in the environment: both show as fingerprints.
    await fx.user.secrets.put("MAPBOX_TOKEN", HAND_SECRET);
    const changed = { ...env, LISTINGS_PASSCODE: NEW_PASSCODE };
    expect(await run("drift", [dir, "--out", out("drift.md")], changed)).toBe(2);
    expect(await run("drift", [dir, "--json", "--out", out("drift.json")], changed)).toBe(2);
    expect(await run("plan", [dir, "--detailed-exitcode", "--out", out("plan2.json")], changed)).toBe(2);
    expect(await run("plan", [dir, "--json"], changed)).toBe(0);
    const planText = captured.find(
      (c) => c.what.startsWith("plan --detailed-exitcode") && c.what.endsWith("stdout"),
    )!.text;
    expect(planText).toMatch(/passcode/);
    expect(planText).toMatch(/secret\.MAPBOX_TOKEN/);
    expect(await run("apply", [dir, "--auto-approve", "--json", "--outputs", outputs], changed)).toBe(0);
    expect(await run("apply", [dir, "--auto-approve", "--outputs", outputs], changed)).toBe(0);
    expect((await fx.user.secrets.get("MAPBOX_TOKEN")).value).toBe(FIXTURE_SECRETS.MAPBOX_TOKEN);

    // A failing update of the passcode: the error is reported, the passcode is not.
    fx.emu.setFaults("500=1,paths=/collection/by-id,methods=PUT|POST");
    try {
      expect(
        await run("apply", [dir, "--auto-approve", "--outputs", outputs], {
          ...changed,
          LISTINGS_PASSCODE: FAILED_PASSCODE,
        }),
      ).toBe(1);
    } finally {
      fx.emu.setFaults(undefined);
    }
    expect(captured.at(-1)!.text).toMatch(/failed with 500/);

    const tokens = Object.values((await readOutputsFile(outputs))!.tokens).map((t) => t.token);
    expect(tokens.length).toBe(4);
    const listings = (await platformView(fx.user)).canvases.find((c) => c.name === "listings")!;
    const forbidden = [
      ...Object.values(FIXTURE_SECRETS),
      NEW_PASSCODE,
      HAND_SECRET,
      FAILED_PASSCODE,
      ...tokens,
      listings.share_token!,
      fx.emu.tokens.user_token,
    ];

    const written = [
      out("plan.json"),
      out("plan2.json"),
      out("drift0.json"),
      out("drift.md"),
      out("drift.json"),
      ...filesUnder(join(dir, ".svc-iac")),
    ];
    for (const file of written) captured.push({ what: file, text: readFileSync(file, "utf8") });
    expect(written.some((f) => f.endsWith("inventory.json"))).toBe(true);
    expect(captured.map((c) => c.what).filter((w) => w.endsWith("stdout") || w.endsWith("stderr")).length).toBe(26);
    for (const { what, text } of captured) {
      for (const value of forbidden) expect(text.includes(value), `${what} contains a secret`).toBe(false);
    }
    // The outputs file is where the tokens go (so the search above would find them), readable by its owner only.
    const outputsText = readFileSync(outputs, "utf8");
    for (const token of tokens) expect(outputsText).toContain(token);
    expect(statSync(outputs).mode & 0o777).toBe(0o600);
  });
});

describe("GIVEN valid-full applied, then a secret's value pasted into a UDF's code", () => {
  const fx = useEmulator();

  it("WHEN plan, plan --json, plan --out, apply of that saved plan and apply --auto-approve run THEN the diff shows [REDACTED], never the value, and the saved plan still applies", async () => {
    const dir = copyRepo("valid-full");
    const outputs = outputsFileOf(dir);
    const env = emulatorEnv(fx.emu);
    const texts: string[] = [];
    const cli = async (name: Name, argv: string[]) => {
      const r = await runInProcess(name, argv, env);
      texts.push(r.stdout, r.stderr);
      return r;
    };
    expect((await cli("apply", [dir, "--auto-approve", "--outputs", outputs])).code).toBe(0);
    writeFileSync(
      join(dir, "canvases/listings/loader.py"),
      `@fused.udf\ndef udf(limit: int = 5):\n    key = "${FIXTURE_SECRETS.MAPBOX_TOKEN}"\n    return limit\n`,
    );

    const plan = await cli("plan", [dir]);
    expect(plan.stdout).toContain('+    key = "[REDACTED]"');
    await cli("plan", [dir, "--json"]);
    const saved = join(dir, "..", "leak-plan.json");
    expect((await cli("plan", [dir, "--out", saved])).code).toBe(0);
    texts.push(readFileSync(saved, "utf8"));
    const applied = await cli("apply", [dir, "--plan", saved, "--outputs", outputs]);
    expect(applied.code, applied.stderr).toBe(0);
    writeFileSync(
      join(dir, "canvases/listings/loader.py"),
      `@fused.udf\ndef udf(limit: int = 6):\n    key = "${FIXTURE_SECRETS.MAPBOX_TOKEN}"\n    return limit\n`,
    );
    const direct = await cli("apply", [dir, "--auto-approve", "--outputs", outputs]);
    expect(direct.code, direct.stderr).toBe(0);
    expect(direct.stdout).toContain('    key = "[REDACTED]"');
    // The platform got the code as written.
    expect((await platformView(fx.user)).udfs.find((u) => u.slug === "loader")!.udf_body).toContain(
      FIXTURE_SECRETS.MAPBOX_TOKEN,
    );
    for (const text of texts) expect(text).not.toContain(FIXTURE_SECRETS.MAPBOX_TOKEN);
  });
});
