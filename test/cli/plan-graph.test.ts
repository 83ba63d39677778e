/**
 * `svc-iac plan --graph [mermaid|dot]`: the plan as a picture, the same one pull-request comments
 * carry, checked by the real Mermaid parser.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CliUsageError } from "../../src/cli/usage";
import { runInProcess as run } from "../helpers/cli-run";
import { useEmulator } from "../helpers/emulator";
import { parseMermaid } from "../helpers/mermaid";
import { appliedRepo, emulatorEnv, outputsFileOf } from "../helpers/repo";

describe("GIVEN the valid-full repository applied, then a canvas and its cronjob removed and a UDF edited", () => {
  const fx = useEmulator();
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await appliedRepo(fx.emu);
    env = emulatorEnv(fx.emu);
    rmSync(join(dir, "canvases", "reports"), { recursive: true });
    rmSync(join(dir, "cronjobs", "weekly_report.yaml"));
    const stats = join(dir, "canvases", "listings", "stats.py");
    writeFileSync(stats, `${readFileSync(stats, "utf8")}\n# edited\n`);
  });

  const plan = (...flags: string[]) => run("plan", [dir, "--prune", "--outputs", outputsFileOf(dir), ...flags], env);

  it("WHEN plan --graph runs THEN stdout is one Mermaid flowchart, accepted by Mermaid, of the deletions, the update and what they refer to", async () => {
    const r = await plan("--graph");
    expect(r.code).toBe(0);
    expect(await parseMermaid(r.stdout)).toBe("flowchart-v2");
    const node = (text: string) =>
      r.stdout.match(new RegExp(`  (n\\d+)\\["${text.replace(/[.*/]/g, "\\$&")}"\\]`))?.[1];
    const canvas = node("canvas.reports<br/>delete");
    const weekly = node("udf.reports/weekly<br/>delete");
    const cronjob = node("cronjob.weekly_report<br/>delete");
    const stats = node("udf.listings/stats<br/>update");
    const listings = node("canvas.listings<br/>unchanged");
    for (const n of [canvas, weekly, cronjob, stats, listings]) expect(n, r.stdout).toBeDefined();
    expect(r.stdout).toContain(`  ${weekly} --> ${canvas}\n`);
    expect(r.stdout).toContain(`  ${cronjob} --> ${weekly}\n`);
    expect(r.stdout).toContain(`  ${stats} --> ${listings}\n`);
    expect(r.stdout).not.toContain("Plan:");
  });

  it("WHEN plan --graph dot runs THEN stdout is a Graphviz digraph of the same objects, and exit codes are the plan's", async () => {
    const r = await plan("--graph", "dot", "--detailed-exitcode");
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^digraph plan \{\n {2}rankdir=LR;\n/);
    expect(r.stdout).toContain('[label="cronjob.weekly_report\\ndelete"');
    expect(r.stdout.trimEnd().endsWith("}")).toBe(true);
  });

  it("WHEN --graph names an unknown format or is combined with --json THEN it is a usage error", async () => {
    await expect(plan("--graph=svg")).rejects.toThrow(
      new CliUsageError('Invalid --graph "svg". Expected mermaid or dot.'),
    );
    await expect(plan("--graph", "--json")).rejects.toThrow(/--graph cannot be combined with --json/);
  });

  it("WHEN plan --graph svg runs in the repository (a format meant, not a folder) THEN it names the formats, not a missing folder svg", async () => {
    await expect(run("plan", ["--graph", "svg"], env)).rejects.toThrow(
      new CliUsageError(
        'Invalid --graph "svg". Expected mermaid or dot (for a picture file: svc-iac plan --graph dot | dot -Tsvg > plan.svg).',
      ),
    );
  });
});

describe("GIVEN a repository applied, with nothing changed since", () => {
  const fx = useEmulator();
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = await appliedRepo(fx.emu);
    env = emulatorEnv(fx.emu);
  });

  it("WHEN plan --graph runs THEN the diagram says there are no changes (one node), in Mermaid and in DOT", async () => {
    const mermaid = await run("plan", [dir, "--outputs", outputsFileOf(dir), "--graph"], env);
    expect({ code: mermaid.code, stdout: mermaid.stdout }).toEqual({
      code: 0,
      stdout: 'flowchart LR\n  none["No changes"]\n',
    });
    await parseMermaid(mermaid.stdout);
    const dot = await run("plan", [dir, "--outputs", outputsFileOf(dir), "--graph", "dot"], env);
    expect(dot.stdout).toContain('  none [label="No changes"];\n}');
  });
});
