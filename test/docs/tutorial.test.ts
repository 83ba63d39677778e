/**
 * The tutorial (docs/tutorial.md) as a newcomer follows it: each `sh` block runs verbatim, in
 * order, in bash, in one temporary folder, with `npx svc-iac` running this package's built command
 * (as after the page's `npm install` of the packed tarball; installing it is what
 * `npm run install-check` tests, and `npm install svc-iac` from the registry fails here as it does
 * there: not published yet). `npx` starts the command as a child and passes no signal on, as npm's
 * does, so a step that stops only npx leaves the command running, and the last test sees it. The `text` block after a command block is what the page says
 * the user will see: each of its lines must appear, in order, in what the commands printed
 * (stdout or stderr), once ids, times and fingerprints are masked. `# exit N` after a command
 * states its exit code.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, readPage } from "./markdown-pages";

export interface Step {
  line: number;
  script: string;
  shown?: string;
  exit: number;
}

/** The page's command blocks with what each shows. */
export function tutorialSteps(file: string): Step[] {
  const fences = readPage(file).fences;
  const steps: Step[] = [];
  fences.forEach((f, i) => {
    if (f.info !== "sh") return;
    const next = fences[i + 1];
    const exits = [...f.content.matchAll(/# exit (\d)/g)].map((m) => Number(m[1]));
    steps.push({
      line: f.line,
      script: f.content,
      shown: next?.info === "text" ? next.content : undefined,
      exit: exits.at(-1) ?? 0,
    });
  });
  return steps;
}

/** What changes from run to run: ids, times, fingerprints, durations, tokens, temporary paths. */
export function masked(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/sha256:[0-9a-f]{8,}/g, "sha256:<fingerprint>")
    .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, "<duration>")
    .replace(/svc_(pat|sa)_[A-Za-z0-9_-]+/g, "<token>")
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, "http://127.0.0.1:<port>")
    .replace(/[ \t]+$/gm, "");
}

/** The shown lines missing from the output, in order: each is looked for in stdout, then stderr, after the last one found there. */
export function missingLines(shown: string, stdout: string, stderr: string): string[] {
  const streams = [masked(stdout).split("\n"), masked(stderr).split("\n")];
  const at = [0, 0];
  const missing: string[] = [];
  for (const line of masked(shown).split("\n")) {
    if (line.trim() === "" || line.trim() === "…") continue;
    const found = streams.some((s, k) => {
      const i = s.indexOf(line, at[k]);
      if (i < 0) return false;
      at[k] = i + 1;
      return true;
    });
    if (!found) missing.push(line);
  }
  return missing;
}

const work = mkdtempSync(join(tmpdir(), "svc-tutorial-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Pids of the commands `npx` started, one a line. */
const pidsFile = join(work, ".npx-pids");

/**
 * `npx svc-iac …` runs the built command as npm's npx does: as a child that gets no signal npx
 * gets. `npm install` accepts a tarball (the step is already done) and answers a registry install
 * of svc-iac as the registry does.
 */
function shims(): string {
  const bin = join(work, ".bin");
  spawnSync("mkdir", ["-p", bin]);
  writeFileSync(
    join(bin, "npx"),
    `#!/usr/bin/env bash\n[ "$1" = svc-iac ] || { echo "the tutorial test runs only npx svc-iac" >&2; exit 127; }\nshift\n"${process.execPath}" "${join(ROOT, "dist/cli/main.js")}" "$@" <&0 &\nchild=$!\necho $child >> '${pidsFile}'\nwait $child\n`,
  );
  writeFileSync(
    join(bin, "npm"),
    `#!/usr/bin/env bash\n[ "$1" = install ] || { echo "the tutorial test runs only npm install" >&2; exit 127; }\nfor a in "$@"; do case "$a" in svc-iac|svc-iac@*) echo "npm error 404 Not Found - GET https://registry.npmjs.org/svc-iac - Not found" >&2; exit 1;; esac; done\n`,
  );
  for (const f of ["npx", "npm"]) chmodSync(join(bin, f), 0o755);
  return bin;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("GIVEN a newcomer following docs/tutorial.md from an empty folder", () => {
  const steps = tutorialSteps("docs/tutorial.md");
  const bin = shims();
  const cwdFile = join(work, ".cwd");
  writeFileSync(cwdFile, join(work, "home"));
  spawnSync("mkdir", ["-p", join(work, "home")]);
  const env = {
    PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH}`,
    HOME: join(work, "home"),
    NO_COLOR: "1",
    LANG: "C.UTF-8",
  };

  it("THEN the page has its steps", () => {
    expect(steps.length).toBeGreaterThanOrEqual(10);
  });

  it.each(steps.map((s) => [s.line, s] as const))(
    "THEN the commands of the block at line %i print what the page shows and exit as it says",
    (_line, step) => {
      const cwd = readFileSync(cwdFile, "utf8").trim();
      const r = spawnSync("bash", ["-c", `${step.script}\nstatus=$?\npwd > '${cwdFile}'\nexit $status`], {
        cwd,
        env,
        encoding: "utf8",
        timeout: 120_000,
      });
      const detail = `block at docs/tutorial.md:${step.line}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
      if (process.env.TUTORIAL_PRINT) console.log(detail);
      expect({ exit: r.status, detail }).toEqual({ exit: step.exit, detail });
      if (step.shown !== undefined)
        expect({ missing: missingLines(step.shown, r.stdout, r.stderr), detail }).toEqual({ missing: [], detail });
    },
    150_000,
  );

  it("THEN no command the page started is left running (the emulator of step 5 is stopped)", async () => {
    const pids = readFileSync(pidsFile, "utf8").split("\n").filter(Boolean).map(Number);
    await new Promise((r) => setTimeout(r, 500));
    const left = pids.filter(alive);
    for (const pid of left) process.kill(pid, "SIGKILL");
    expect(left).toEqual([]);
  });
});
