/**
 * What apply prints as a user meets it: the built command against the emulator over HTTP, in a
 * pipe (a CI log) and in a real terminal (a tmux pane). A first apply of 2,000 UDFs on 20 canvases
 * prints under 100 lines by default and every object with --verbose; the terminal's status line
 * fits its width and leaves nothing behind; Ctrl-C at the "yes" prompt changes nothing, releases
 * the lock and exits 130.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/emulator";
import { builtCli, emulatorEnv, platformView } from "../helpers/repo";
import { inTmux, tmuxAvailable } from "../helpers/tmux";
import { minimalEnv } from "../helpers/process-env";

const fx = useEmulator();
let main: string;
beforeAll(() => {
  main = builtCli();
}, 120_000);

/** A repository `project` of `canvases` canvases named `<prefix>00`, … with `perCanvas` UDFs each (`u00000`, …). */
function repository(
  project: string,
  prefix: string,
  canvases: number,
  perCanvas: number,
  slug = (i: number) => `u${String(i).padStart(5, "0")}`,
): string {
  const dir = join(mkdtempSync(join(tmpdir(), "svc-output-")), "repo");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "svc.yaml"), `project: ${project}\n`);
  for (let c = 0; c < canvases; c++) {
    const folder = join(dir, "canvases", `${prefix}${String(c).padStart(2, "0")}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "canvas.yaml"), "");
    for (let i = c * perCanvas; i < (c + 1) * perCanvas; i++)
      writeFileSync(join(folder, `${slug(i)}.py`), `@fused.udf\ndef udf():\n    return ${i}\n`);
  }
  return dir;
}

/** `svc-iac ...args` in pipes: exit code and stdout and stderr as they were interleaved. */
function inPipes(args: string[], env: Record<string, string>): Promise<{ code: number | null; log: string }> {
  const child = spawn(process.execPath, [main, ...args], {
    env: { ...minimalEnv(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout!.on("data", (c) => (log += String(c)));
  child.stderr!.on("data", (c) => (log += String(c)));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, log })));
}

const lines = (text: string) => text.replace(/\n$/, "").split("\n");
const udfsOn = async (prefix: string) =>
  (await platformView(fx.user)).udfs.filter((u) => u.collection_name?.startsWith(prefix)).length;
const lockFiles = (dir: string, project: string) => {
  const state = join(dir, ".svc-iac", "state", project, "default");
  return existsSync(state) ? readdirSync(state).filter((f) => f.includes("lock")) : [];
};

describe("GIVEN a first apply of 2,000 UDFs on 20 canvases, approved with --auto-approve", () => {
  it("WHEN it runs in a pipe (a CI log) THEN it prints under 100 lines in all: the plan, a progress line and a report line per canvas", async () => {
    const dir = repository("bulk_pipe", "p", 20, 100);
    const r = await inPipes(["apply", dir, "--auto-approve"], emulatorEnv(fx.emu));
    expect(r.code, r.log.slice(-2000)).toBe(0);
    const all = lines(r.log);
    expect(all.length).toBeLessThan(100);
    expect(all).toContain("  + create   canvas.p00 and its 100 UDFs (u00000 … u00099)");
    expect(all).toContain("  + create   canvas.p19 and its 100 UDFs (u01900 … u01999)");
    expect(all).toContain("Plan: 2,020 to create.");
    expect(all.filter((l) => /^\[\d+\/2020\] canvas\.p\d\d: 101 done$/.test(l))).toHaveLength(20);
    expect(all).toContain("✓ created canvas.p07 and its 100 UDFs (u00700 … u00799)");
    expect(all.at(-1)).toBe("Apply complete: 2020 done, 0 failed, 0 skipped.");
    expect(r.log).not.toMatch(/[\x00-\x09\x0b-\x1f]/);
    expect(await udfsOn("p")).toBe(2000);
  }, 240_000);

  it("WHEN it runs with --verbose THEN every object is listed in the plan with its attributes, in the progress and in the report", async () => {
    const dir = repository("bulk_verbose", "v", 20, 100);
    const r = await inPipes(["apply", dir, "--auto-approve", "--verbose"], emulatorEnv(fx.emu));
    expect(r.code, r.log.slice(-2000)).toBe(0);
    const all = lines(r.log);
    for (let i = 0; i < 2000; i += 1) {
      const address = `udf.v${String(Math.floor(i / 100)).padStart(2, "0")}/u${String(i).padStart(5, "0")}`;
      expect(all).toContain(`  + create   ${address}`);
    }
    expect(all.filter((l) => /^\s+\+ create {3}udf\.v\d\d\/u\d{5}$/.test(l))).toHaveLength(2000);
    expect(all.filter((l) => /^\[\d+\/2020\] done create /.test(l))).toHaveLength(2020);
    expect(all.filter((l) => /^✓ created udf\.v\d\d\/u\d{5} \(id [^)]+\)$/.test(l))).toHaveLength(2000);
    expect(all).toContain('      slug: "u01234"');
    expect(r.log).not.toContain("shown in groups");
  }, 240_000);

  it.skipIf(!tmuxAvailable)(
    "WHEN it runs in a terminal (a 120-column tmux pane) THEN the screen holds under 100 lines, with no status line left behind",
    async () => {
      const dir = repository("bulk_tty", "t", 20, 100);
      const pane = inTmux([process.execPath, main, "apply", ".", "--auto-approve"], {
        columns: 120,
        rows: 40,
        env: emulatorEnv(fx.emu),
        cwd: dir,
      });
      try {
        expect(await pane.exited()).toBe(0);
        const screen = pane.screen();
        expect(screen.length, screen.join("\n")).toBeLessThan(100);
        expect(screen).toContain("  + create   canvas.t00 and its 100 UDFs (u00000 … u00099)");
        expect(screen).toContain("✓ created canvas.t19 and its 100 UDFs (u01900 … u01999)");
        expect(screen.at(-1)).toBe("Apply complete: 2020 done, 0 failed, 0 skipped.");
        // The status line was cleared: no "[812/2020] creating …" row remains.
        expect(screen.filter((row) => /^\[\d+\/2020\]/.test(row))).toEqual([]);
      } finally {
        pane.close();
      }
    },
    240_000,
  );
});

describe.skipIf(!tmuxAvailable)(
  "GIVEN a terminal of 40 columns and objects with long names (a real tmux pane; skipped only where tmux is missing)",
  () => {
    it("WHEN apply runs against a slow platform and the terminal is resized THEN the status line always fits on one row, keeps its counter and action word, and nothing of it is left at the end", async () => {
      // Each create is held 1 s until the terminal has been narrowed: the apply cannot end before.
      fx.emu.setFaults("latency=1000,methods=POST");
      const dir = repository(
        "long_names",
        "sales_and_marketing_reports_",
        1,
        40,
        (i) => `weekly_summary_of_the_region_${String(i).padStart(3, "0")}`,
      );
      const pane = inTmux([process.execPath, main, "apply", ".", "--auto-approve", "--concurrency", "2"], {
        columns: 40,
        rows: 20,
        env: emulatorEnv(fx.emu),
        cwd: dir,
      });
      const seen: string[][] = [];
      try {
        await pane.waitFor(/^\[\d+\/41\] creating/);
        let code: number | undefined;
        const exited = pane.exited().then((c) => (code = c));
        // Wider, then narrower than the line shown: a terminal that re-wraps (tmux does) must not keep
        // a part of it. Screens are checked up to the narrowing (right after it, the line is re-wrapped
        // until the command redraws it), the last one after the end.
        // tmux re-wraps its screen at once, but tells the command of a resize that follows another
        // within 250 ms (SIGWINCH, and the size the terminal reports) only when those 250 ms are up:
        // meanwhile the command, told nothing, draws lines as wide as the old width, which no program
        // could clear. So the narrowing waits until the command has drawn a line wider than 40
        // columns (it was told of the widening), then 300 ms more: a loaded machine only lengthens
        // that wait.
        let narrowed = false;
        let widenedAt: number | undefined;
        while (code === undefined) {
          const rows = pane.screen();
          if (!narrowed) seen.push(rows.filter((r) => /^\[\d+\/41\]/.test(r)));
          if (seen.length === 10) pane.resize(60, 20);
          if (widenedAt === undefined && seen.length > 10 && seen.at(-1)!.some((r) => r.length > 40))
            widenedAt = performance.now();
          if (!narrowed && seen.length >= 20 && widenedAt !== undefined && performance.now() - widenedAt >= 300) {
            pane.resize(25, 20);
            narrowed = true;
            fx.emu.setFaults(undefined);
          }
          await new Promise((r) => setTimeout(r, 20));
        }
        // The apply did not end before the terminal was widened and then narrowed.
        expect([widenedAt !== undefined, narrowed]).toEqual([true, true]);
        await exited;
        expect(code).toBe(0);
        const statusRows = seen.flat();
        expect(statusRows.length).toBeGreaterThan(0);
        for (const row of statusRows) {
          // One row (a wrapped line would leave its start on a row of its own), never a stub.
          expect(row).toMatch(/^\[\d+\/41\] creating( \S+ …( \(\+\d+ more\))?)?$/);
          expect(row).not.toMatch(/creating \S{0,6}…$/);
        }
        expect(seen.every((rows) => rows.length <= 1)).toBe(true);
        const lines = pane.lines();
        expect(
          lines.filter((line) => /\[\d+\/41\]/.test(line)),
          lines.join("\n"),
        ).toEqual([]);
        expect(lines.at(-1)).toBe("Apply complete: 41 done, 0 failed, 0 skipped.");
      } finally {
        fx.emu.setFaults(undefined);
        pane.close();
      }
    }, 120_000);
  },
);

describe.skipIf(!tmuxAvailable)(
  "GIVEN apply waiting at its yes/no prompt in a terminal (a real tmux pane; skipped only where tmux is missing)",
  () => {
    for (const how of [
      "Ctrl-C typed at the prompt",
      "SIGINT sent to the process",
      "SIGTERM sent to the process",
    ] as const) {
      it(`WHEN ${how} THEN it exits 130 saying nothing was applied, changes nothing and releases the lock: the next apply needs no --force-unlock`, async () => {
        const project = `prompt_${how.split(" ")[0]!.replace("-", "").toLowerCase()}`;
        const prefix = `${project}_`;
        const dir = repository(project, prefix, 1, 3);
        const pane = inTmux([process.execPath, main, "apply", "."], {
          columns: 100,
          rows: 30,
          env: emulatorEnv(fx.emu),
          cwd: dir,
        });
        try {
          await pane.waitFor(/Only "yes" is accepted:/);
          if (how === "Ctrl-C typed at the prompt") pane.keys("C-c");
          else process.kill(pane.pid(), how.startsWith("SIGINT") ? "SIGINT" : "SIGTERM");
          expect(await pane.exited()).toBe(130);
          const screen = pane.screen();
          expect(screen.at(-1)).toBe("Interrupted before any change; nothing was applied.");
          expect(screen.join("\n")).not.toContain("Apply cancelled");
          expect(lockFiles(dir, project)).toEqual([]);
          expect((await platformView(fx.user)).canvases.filter((c) => c.name.startsWith(prefix))).toEqual([]);
        } finally {
          pane.close();
        }
        const again = await inPipes(["apply", dir, "--auto-approve"], emulatorEnv(fx.emu));
        expect(again.code, again.log).toBe(0);
        expect(again.log).toContain("Apply complete: 4 done, 0 failed, 0 skipped.");
      }, 60_000);
    }
  },
);
