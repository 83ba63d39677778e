// `svc-iac projects --changed-since` on a monorepo of 200 projects and 20,000 files (a real git
// repository on a branch that changes three projects and a shared helper), beside the floor of
// `git diff --name-only` on the same repository, each as its own process (median of 5).
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const CLI = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "cli", "main.js");
const git = (cwd, ...args) =>
  execFileSync("git", args, { cwd, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28 }).toString();

export function build(projects, filesPerProject) {
  const root = mkdtempSync(join(tmpdir(), "svc-bench-projects-"));
  git(root, "init", "-q", "-b", "main");
  const write = (p, t) => {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), t);
  };
  write("shared/geo.py", "def area(x):\n    return x\n");
  for (let i = 0; i < projects; i++) {
    const dir = `domains/p${String(i).padStart(3, "0")}`;
    write(`${dir}/svc.yaml`, `project: p${String(i).padStart(3, "0")}\ntargets:\n  prod: {}\n`);
    const canvas = `${dir}/canvases/c${i}`;
    write(`${canvas}/canvas.yaml`, "access_scope: team\n");
    // Half the files are UDFs with settings (a tenth of those read the shared helper), the rest are data.
    for (let f = 0; f < filesPerProject - 2; f += 2) {
      write(`${canvas}/u${f}.py`, `def udf():\n    return ${f}\n`);
      write(
        `${canvas}/u${f}.yaml`,
        f % 20 === 0 && i % 10 === 0
          ? "headers:\n  - module: geo\n    file: ../../../../shared/geo.py\n"
          : "metadata: {}\n",
      );
    }
  }
  git(root, "add", "-A");
  git(root, "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-q", "-m", "projects");
  git(root, "checkout", "-q", "-b", "feature");
  for (const i of [3, 77, 150])
    appendFileSync(join(root, `domains/p${String(i).padStart(3, "0")}/canvases/c${i}/u0.py`), "# change\n");
  appendFileSync(join(root, "shared/geo.py"), "# change\n");
  git(root, "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-q", "-am", "change");
  return root;
}

/** CPU time (user + system, ms) of this process's finished children and theirs (Linux: /proc/self/stat, in clock ticks of 10 ms). */
function childrenCpuMs() {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    // After the name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return NaN;
  }
}

/** Median wall time and median CPU time (the command and the processes it starts) of `runs` runs. */
function median(runs, args, cwd) {
  const times = [];
  const cpu = [];
  let out = "";
  for (let i = 0; i < runs; i++) {
    const c = childrenCpuMs();
    const t = process.hrtime.bigint();
    const r = spawnSync(args[0], args.slice(1), { cwd, encoding: "utf8", maxBuffer: 1 << 28 });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    cpu.push(childrenCpuMs() - c);
    if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
    out = r.stdout;
  }
  const mid = (list) => list.sort((a, b) => a - b)[Math.floor(runs / 2)];
  return { ms: mid(times), cpuMs: mid(cpu), out };
}

export async function benchProjects(line, projects = 200, filesPerProject = 100) {
  const root = build(projects, filesPerProject);
  try {
    const files = git(root, "ls-files").split("\n").filter(Boolean).length;
    const floor = median(5, ["git", "diff", "--name-only", "main"], root);
    const run = median(5, [process.execPath, CLI, "projects", "--changed-since", "main", "--json"], root);
    const help = median(5, [process.execPath, CLI, "--help"], root);
    const affected = JSON.parse(run.out).include.length;
    line(`projects --changed-since, ${projects} projects, ${files} files, ms`, Math.round(run.ms), "< 1000");
    line("  its CPU (user + system, with its git processes), ms", Math.round(run.cpuMs), "");
    line(`  matrix entries (3 changed + readers of shared/geo.py)`, affected, "");
    line("  floor: git diff --name-only main, ms", Math.round(floor.ms), "");
    line("  floor: its CPU, ms", Math.round(floor.cpuMs), "");
    line("  floor: svc-iac --help (Node start), ms", Math.round(help.ms), "");
    line("  load average (1 min) during the runs", loadavg()[0].toFixed(1), "");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchProjects((label, value, target) =>
    console.log(`${label.padEnd(60)} ${String(value).padStart(8)}   ${target ? `(target ${target})` : ""}`),
  );
}
