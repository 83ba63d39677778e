/**
 * One project name, one folder. A second folder claiming a project's name (`contrib/svc.yaml`
 * holding `project: p05` beside `domains/p05`) is refused by `projects` (both folders named, neither
 * in the matrix), and by plan, apply, destroy, import and forget in either folder, before anything
 * reaches the platform or the shared state: with the first folder's state and `prune: true`, it
 * would delete that project's objects.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import type { CommandResult } from "../../../src/reconcile/commands/command-types";
import { destroyCommand } from "../../../src/reconcile/commands/destroy";
import { forgetCommand } from "../../../src/reconcile/commands/forget";
import { importCommand } from "../../../src/reconcile/commands/import";
import { formatLoadError } from "../../../src/model/desired";
import { useEmulator } from "../../helpers/emulator";
import { git, monorepo, writeFiles } from "../../helpers/monorepo";
import { runSvc } from "../../helpers/cli-run";
import { emulatorEnv } from "../../helpers/repo";

/** `svc-iac projects ...args` run from `cwd` (the command line, in this process). */
const projects = (cwd: string, ...args: string[]) =>
  runSvc(["projects", ...args], { ...(process.env as Record<string, string>), NO_COLOR: "1" }, { cwd });
const errorsOf = (r: Pick<CommandResult, "errors">) => r.errors.map(formatLoadError).join("\n");

const fx = useEmulator();
let root: string;
beforeAll(() => {
  root = monorepo(6);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("GIVEN a monorepo where p05 is deployed", () => {
  let deployed: string[];
  beforeAll(async () => {
    const r = await applyCommand({ dir: join(root, "domains/p05"), env: emulatorEnv(fx.emu, { SVC_CACHE_DIR: "" }) });
    expect(r.exitCode, errorsOf(r)).toBe(0);
    deployed = (await fx.user.canvases.listSelf().toArray()).map((c) => c.name).filter((n) => n.startsWith("p05"));
    expect(deployed).toEqual(["p05_canvas"]);
    // A contributor adds a folder claiming p05's name, with p05's state and prune: true.
    writeFiles(root, {
      "contrib/svc.yaml": "project: p05\nstate: ../domains/p05/.svc-iac/state\nprune: true\n",
    });
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "contrib claims p05");
  }, 60_000);

  it("WHEN projects --json runs THEN it exits 1 naming both folders, and neither is in the matrix (the other projects are)", async () => {
    const r = await projects(root, "--json");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'contrib/svc.yaml:1:10: project: "p05" is also the project of domains/p05 (domains/p05/svc.yaml).',
    );
    expect(r.stderr).toContain(
      'domains/p05/svc.yaml:1:10: project: "p05" is also the project of contrib (contrib/svc.yaml).',
    );
    const include = (JSON.parse(r.stdout) as { include: { project: string; dir: string }[] }).include;
    expect(include.map((e) => e.dir)).not.toContain("contrib");
    expect(include.map((e) => e.dir)).not.toContain("domains/p05");
    expect(include.map((e) => e.project)).toContain("p04");
  });

  it("WHEN only the new folder changed since main THEN projects still refuses it", async () => {
    const r = await projects(root, "--changed-since", "HEAD~1", "--json");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ include: [] });
    expect(r.stderr).toContain('contrib/svc.yaml:1:10: project: "p05" is also the project of domains/p05');
  });

  it("WHEN the second folder is applied with prune THEN it is refused at its project: naming the first, and p05's objects stay", async () => {
    const r = await applyCommand({
      dir: join(root, "contrib"),
      env: emulatorEnv(fx.emu, { SVC_CACHE_DIR: "" }),
      prune: true,
    });
    expect(r.exitCode).toBe(1);
    expect(errorsOf(r)).toContain(
      'svc.yaml:1:10: project: "p05" is also the project of domains/p05 (domains/p05/svc.yaml)',
    );
    const names = (await fx.user.canvases.listSelf().toArray()).map((c) => c.name);
    expect(names).toContain("p05_canvas");
  });

  it("WHEN the first folder is planned or destroyed THEN it is refused too, naming the second", async () => {
    const env = emulatorEnv(fx.emu, { SVC_CACHE_DIR: "" });
    const plan = await planCommand({ dir: join(root, "domains/p05"), env });
    expect(plan.exitCode).toBe(1);
    expect(errorsOf(plan)).toContain("is also the project of contrib (contrib/svc.yaml)");
    const destroy = await destroyCommand({ dir: join(root, "contrib"), env, confirm: async () => true });
    expect(destroy.exitCode).toBe(1);
    expect(errorsOf(destroy)).toContain("is also the project of domains/p05");
    expect((await fx.user.canvases.listSelf().toArray()).map((c) => c.name)).toContain("p05_canvas");
  });

  it("WHEN the second folder imports or forgets THEN it is refused before the shared inventory is touched", async () => {
    const env = emulatorEnv(fx.emu, { SVC_CACHE_DIR: "" });
    const inventory = join(root, "domains/p05/.svc-iac/state/p05/default/inventory.json");
    const before = readFileSync(inventory, "utf8");
    const imported = await importCommand({
      dir: join(root, "contrib"),
      env,
      select: { canvases: ["p05_canvas"], cronjobs: false, secrets: false, serviceAccounts: false },
    });
    expect(imported.exitCode).toBe(1);
    expect(errorsOf(imported)).toContain("is also the project of domains/p05");
    const forgot = await forgetCommand({ dir: join(root, "contrib"), env, addresses: ["canvas.p05_canvas"] });
    expect(forgot.exitCode).toBe(1);
    expect(errorsOf(forgot)).toContain("is also the project of domains/p05");
    expect(readFileSync(inventory, "utf8")).toBe(before);
  });
});
