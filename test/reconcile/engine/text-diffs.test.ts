/**
 * Diffs of text fields over the emulator: a UDF edited by hand shows exactly the edited lines
 * (platform → repository) in `plan`, `plan --json`, `drift --format md` and `drift --format json`;
 * a long diff is cut with a note; a secret change shows no value and no diff; and the commands the
 * drift report names settle the drift (import --keep keeps the hand change, apply restores the rest).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { runImportCommand } from "../../../src/cli/import-command";
import { applyCommand } from "../../../src/reconcile/commands";
import type { DriftReport, Plan } from "../../../src/reconcile/plan/plan-model";
import { runInProcess } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { planSchemaErrors, readValidSavedPlan } from "../../helpers/saved-plan";
import { commandOptions, copyRepo, emulatorEnv, FIXTURE_SECRETS, platformView } from "../../helpers/repo";

const HAND_SECRET = "hand-edited-secret-value-8c41d2";
const SEE = "see from and to in the --json output";

/** A 20-line UDF; the hand edit changes lines 9 to 11. */
const REPORT =
  [
    "@fused.udf",
    'def udf(city: str = "nyc"):',
    ...Array.from({ length: 17 }, (_, i) => `    step_${i + 1} = ${i + 1}`),
    "    return step_17",
  ].join("\n") + "\n";
const REPO_LINES = ["    step_7 = 7", "    step_8 = 8", "    step_9 = 9"];
const HAND_LINES = ["    step_7 = 70  # by hand", "    step_8 = 80  # by hand", "    step_9 = 90  # by hand"];
/** A UDF with a line the Actions runner would obey as a workflow command, next to the line edited by hand. */
const COMMANDS = '@fused.udf\ndef udf():\n    """\n    ::add-mask::udf\n    """\n    return 1\n';
/** A 300-line UDF that is rewritten entirely by hand: its diff is longer than the bound. */
const LONG =
  ["@fused.udf", "def udf():", ...Array.from({ length: 297 }, (_, i) => `    v_${i} = ${i}`), "    return 0"].join(
    "\n",
  ) + "\n";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const cli = (
  command: "plan" | "drift" | "apply",
  argv: string[],
  env: Record<string, string>,
  tty = false,
): Promise<Run> => runInProcess(command, argv, env, { stdoutTty: tty });

/** The removed and added lines of a diff (without the `---`/`+++` headers). */
function changedLines(diff: string): { removed: string[]; added: string[] } {
  const lines = diff.split("\n").filter((l) => !l.startsWith("--- ") && !l.startsWith("+++ "));
  return {
    removed: lines.filter((l) => l.startsWith("-")).map((l) => l.slice(1)),
    added: lines.filter((l) => l.startsWith("+")).map((l) => l.slice(1)),
  };
}

/** Rewrites the code in a UDF's body on the platform, as an edit in the workbench does. */
async function editByHand(
  fx: ReturnType<typeof useEmulator>,
  canvas: string,
  slug: string,
  edit: (code: string) => string,
): Promise<void> {
  const udf = (await platformView(fx.user)).udfs.find((u) => u.collection_name === canvas && u.slug === slug)!;
  const body = JSON.parse(udf.udf_body) as { code: string };
  await fx.user.udfs.update(udf.id, { udf_body: JSON.stringify({ ...body, code: edit(body.code) }) });
}

describe("GIVEN an applied repository whose UDF reports/report is edited by hand in three lines, reports/long rewritten, and a secret changed", () => {
  const fx = useEmulator();
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    env = emulatorEnv(fx.emu);
    writeFileSync(join(dir, "canvases", "reports", "report.py"), REPORT);
    writeFileSync(join(dir, "canvases", "reports", "long.py"), LONG);
    writeFileSync(join(dir, "canvases", "reports", "commands.py"), COMMANDS);
    const r = await applyCommand(commandOptions(dir, fx.emu));
    if (r.exitCode !== 0) throw new Error(`apply failed: ${JSON.stringify(r)}`);
    await editByHand(fx, "reports", "report", (code) => code.replace(REPO_LINES.join("\n"), HAND_LINES.join("\n")));
    await editByHand(fx, "reports", "long", (code) => code.replace(/ = (\d+)$/gm, " = -$1"));
    await editByHand(fx, "reports", "commands", (code) => code.replace("return 1", "return 2"));
    await fx.user.secrets.put("MAPBOX_TOKEN", HAND_SECRET);
  });

  it("WHEN plan runs THEN it shows exactly the three edited lines as - (platform) and + (repository), in its colours on a terminal only", async () => {
    const plan = await cli("plan", [dir, "--detailed-exitcode"], env);
    expect(plan.code).toBe(2);
    const lines = plan.stdout.split("\n");
    const at = lines.findIndex((l) => l.startsWith("  ~ update   udf.reports/report (id "));
    expect(lines[at + 1]).toBe("      code: changed (+3 −3 lines)");
    // The diff: the lines under the object's field line, up to the next object.
    const diff = lines.slice(
      at + 2,
      lines.findIndex((l, i) => i > at && !l.startsWith("      ")),
    );
    expect(diff.slice(0, 3)).toEqual([
      "      --- code (platform)",
      "      +++ code (repository)",
      "      @@ -6,9 +6,9 @@",
    ]);
    const changed = changedLines(diff.map((l) => l.slice(6)).join("\n"));
    expect(changed).toEqual({ removed: HAND_LINES, added: REPO_LINES });
    expect(plan.stdout).not.toContain("\x1b[");

    const tty = await cli("plan", [dir], env, true);
    expect(tty.stdout).toContain(`\x1b[31m-${HAND_LINES[0]}\x1b[0m`);
    expect(tty.stdout).toContain(`\x1b[32m+${REPO_LINES[0]}\x1b[0m`);
  });

  it("WHEN plan and drift run under GitHub Actions THEN code lines that look like workflow commands are printed with commands switched off", async () => {
    const plain = await cli("plan", [dir], env);
    expect(plain.stdout).toContain(`\n${" ".repeat(11)}::add-mask::udf\n`);
    for (const run of [
      await cli("plan", [dir], { ...env, GITHUB_ACTIONS: "true" }),
      await cli("drift", [dir], { ...env, GITHUB_ACTIONS: "true" }),
    ]) {
      const token = /^::stop-commands::([0-9a-f-]{36})\n/.exec(run.stdout)?.[1];
      expect(token).toBeDefined();
      expect(run.stdout.endsWith(`\n::${token}::\n`)).toBe(true);
      expect(run.stdout).toContain("    ::add-mask::udf\n");
    }
  });

  it("WHEN plan --json runs THEN the code field carries the same diff, and a diff longer than the bound ends with the note", async () => {
    const plan = JSON.parse((await cli("plan", [dir, "--json"], env)).stdout) as Plan;
    const report = plan.actions.find((a) => a.address === "udf.reports/report")!;
    const code = report.fields.find((f) => f.field === "code")!;
    expect(changedLines(code.diff!)).toEqual({ removed: HAND_LINES, added: REPO_LINES });
    expect(code.diff!.split("\n")[2]).toBe("@@ -6,9 +6,9 @@");

    const long = plan.actions.find((a) => a.address === "udf.reports/long")!.fields.find((f) => f.field === "code")!;
    const lines = long.diff!.split("\n");
    expect(lines).toHaveLength(201);
    // 2 headers, 1 hunk header, 2 unchanged lines before, 297 removed, 297 added, 1 unchanged after (context).
    expect(lines.at(-1)).toBe(`… ${3 + 2 + 297 * 2 + 1 - 200} more lines; ${SEE}`);
    expect(lines.slice(2, 6)).toEqual(["@@ -1,300 +1,300 @@", " @fused.udf", " def udf():", "-    v_0 = -0"]);
  });

  it("WHEN plan --out saves the plan THEN it validates against schemas/plan.schema.json with the diffs in it, and a diff on a secret field would not", async () => {
    const file = join(dir, "..", "plan.json");
    expect((await cli("plan", [dir, "--out", file], env)).code).toBe(0);
    const saved = readValidSavedPlan(file);
    const code = saved.plan.actions
      .find((a) => a.address === "udf.reports/report")!
      .fields.find((f) => f.field === "code")!;
    expect(changedLines(code.diff!)).toEqual({ removed: HAND_LINES, added: REPO_LINES });
    const secret = saved.plan.actions.find((a) => a.address === "secret.MAPBOX_TOKEN")!;
    secret.fields[0]!.diff = "-a\n+b";
    expect(planSchemaErrors(saved).length).toBeGreaterThan(0);
  });

  it("WHEN drift --format json runs THEN the changed UDF's code field carries exactly the edited lines, and the settling commands", async () => {
    const run = await cli("drift", [dir, "--format", "json"], env);
    expect(run.code).toBe(2);
    const drift = JSON.parse(run.stdout) as DriftReport;
    const item = drift.items.find((i) => i.address === "udf.reports/report")!;
    expect(item.class).toBe("changed");
    expect(changedLines(item.fields.find((f) => f.field === "code")!.diff!)).toEqual({
      removed: HAND_LINES,
      added: REPO_LINES,
    });
    expect(item.commands).toEqual({
      restore: "svc-iac apply --target default --only udf.reports/report",
      keep: "svc-iac import --target default --keep udf.reports/report",
    });
    expect(drift.items.find((i) => i.address === "secret.MAPBOX_TOKEN")!.commands).toEqual({
      restore: "svc-iac apply --target default --only secret.MAPBOX_TOKEN",
      keepUnavailable: "a secret's value never leaves the platform",
    });
  });

  it("WHEN drift --format md runs THEN the UDF's details hold a diff block of exactly the edited lines, the file to edit and the commands", async () => {
    const run = await cli("drift", [dir, "--format", "md"], env);
    expect(run.code).toBe(2);
    const start = run.stdout.indexOf("<details><summary><code>udf.reports/report</code>");
    const details = run.stdout.slice(start, run.stdout.indexOf("</details>", start));
    expect(details).toContain(" at <code>canvases/reports/report.py:1</code></summary>");
    const block = /```diff\n([\s\S]*?)\n```\n/.exec(details)![1]!;
    expect(block.startsWith("--- code (platform)\n+++ code (repository)\n@@ -6,9 +6,9 @@\n")).toBe(true);
    expect(changedLines(block)).toEqual({ removed: HAND_LINES, added: REPO_LINES });
    expect(details).toContain(
      "To put the repository's version back on the platform: `svc-iac apply --target default --only udf.reports/report`.",
    );
    expect(details).toContain(
      "To keep the change made on the platform instead: `svc-iac import --target default --keep udf.reports/report` (it writes only the fields that drifted), then review and commit the files it changes.",
    );

    const long = run.stdout.slice(run.stdout.indexOf("<details><summary><code>udf.reports/long</code>"));
    expect(long.slice(0, long.indexOf("</details>"))).toContain(
      `\n… ${3 + 2 + 297 * 2 + 1 - 200} more lines; ${SEE}\n\`\`\`\n`,
    );
  });

  it("WHEN the secret was changed by hand THEN plan and drift say changed, with no value and no diff, in every form", async () => {
    const outputs = [
      (await cli("plan", [dir], env)).stdout,
      (await cli("plan", [dir], env, true)).stdout,
      (await cli("plan", [dir, "--json"], env)).stdout,
      (await cli("drift", [dir, "--format", "md"], env)).stdout,
      (await cli("drift", [dir, "--format", "json"], env)).stdout,
    ];
    for (const out of outputs) {
      for (const value of [HAND_SECRET, ...Object.values(FIXTURE_SECRETS)]) expect(out).not.toContain(value);
      expect(out).not.toContain("value (platform)");
    }
    const secret = (JSON.parse(outputs[4]!) as DriftReport).items.find((i) => i.address === "secret.MAPBOX_TOKEN")!;
    expect(secret.fields).toEqual([
      {
        field: "value",
        action: "update",
        secret: true,
        fromFingerprint: expect.any(String),
        toFingerprint: expect.any(String),
      },
    ]);
    expect(outputs[0]).toMatch(
      /\n {6}value: \(secret changed, hmac-sha256:[0-9a-f]{12} → hmac-sha256:[0-9a-f]{12}\)\n/,
    );
  });

  it("WHEN the drift report's keep command runs THEN the hand edit is in the repository; its restore command then ends all drift", async () => {
    // GIVEN `svc-iac import --target default --keep udf.reports/report` (and the same for the other edited UDFs), as the report names them
    const err: string[] = [];
    const stderr = new PassThrough().on("data", (c) => err.push(String(c)));
    const code = await runImportCommand(
      [
        dir,
        "--target",
        "default",
        "--keep",
        "udf.reports/report",
        "--keep",
        "udf.reports/long",
        "--keep",
        "udf.reports/commands",
      ],
      { stdout: new PassThrough(), stderr, env },
    );
    expect(err.join("")).toBe("");
    expect(code).toBe(0);
    // THEN the repository holds the platform's code, and the reports UDFs no longer drift
    expect(readFileSync(join(dir, "canvases", "reports", "report.py"), "utf8")).toContain(HAND_LINES.join("\n"));
    const after = JSON.parse((await cli("drift", [dir, "--format", "json"], env)).stdout) as DriftReport;
    expect(after.items.map((i) => `${i.class} ${i.address}`)).toEqual(["changed secret.MAPBOX_TOKEN"]);
    // WHEN the secret's restore command `svc-iac apply --target default --only secret.MAPBOX_TOKEN` runs
    // THEN the secret is the repository's again, and nothing drifts
    expect(
      (await cli("apply", [dir, "--target", "default", "--only", "secret.MAPBOX_TOKEN", "--auto-approve"], env)).code,
    ).toBe(0);
    const settled = await cli("drift", [dir, "--format", "json"], env);
    expect(settled.code).toBe(0);
    expect((JSON.parse(settled.stdout) as DriftReport).items).toEqual([]);
  });
});
