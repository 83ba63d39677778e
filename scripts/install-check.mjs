#!/usr/bin/env node
/**
 * The package as a new user installs it: `npm pack`, then, in a fresh temporary folder, the README's
 * install commands as written there (the block that installs the tarball, with the path of the one
 * just packed in place of the README's), so the README's first command is the one CI runs. Prints the figures beside their targets (packages, node_modules size,
 * `require("svc-iac")` time, the bundled action's start) and runs the command line from there:
 * `npx svc-iac --help`, then init, validate, plan and apply on the embedded emulator.
 *
 *   node scripts/install-check.mjs [--no-build]   (--no-build: pack dist/ as built, skipping the prepack script's build)
 *
 * Exit 1 when a functional check fails. The figures are reported (PASS/FAIL beside each), never a
 * reason to fail: speed and size depend on the machine and the registry's current versions.
 */
import { spawnSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { benchActionStart } from "../bench/action-start.mjs";

const ROOT = join(import.meta.dirname, "..");
const TARGETS = { packages: 60, megabytes: 40, requireMs: 200, actionFirstOutputMs: 1000 };
const work = mkdtempSync(join(tmpdir(), "svc-install-check-"));
const app = join(work, "app");
// The Node running this script runs npm, npx and the installed command (Node 24 under npm scripts).
const env = {
  ...process.env,
  PATH: [dirname(process.execPath), process.env.PATH].join(delimiter),
  npm_config_fund: "false",
  npm_config_audit: "false",
  npm_config_update_notifier: "false",
};
for (const name of ["SVC_BASE_URL", "SVC_UDF_BASE_URL", "SVC_TOKEN", "SVC_SERVICE_TOKEN"]) delete env[name];
const failures = [];
let passed = 0;

/**
 * The README's install block: the first `sh` block of its "## Install" section that runs
 * `npm install` on a `.tgz`; that command and the `npx svc-iac` lines after it, comments dropped.
 */
function readmeInstall() {
  const text = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = text.slice(text.indexOf("\n## Install\n"), text.indexOf("\n## ", text.indexOf("\n## Install\n") + 1));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  const block = blocks.find((b) => /^npm install .*\.tgz/m.test(b)) ?? section;
  const lines = block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter(Boolean)
    .map((l) => l.split(/\s+/));
  const at = lines.findIndex((l) => l[0] === "npm" && l[1] === "install" && l.some((a) => a.endsWith(".tgz")));
  return {
    block,
    install: at < 0 ? undefined : lines[at],
    after: at < 0 ? [] : lines.slice(at + 1).filter((l) => l[0] === "npx"),
  };
}

function sh(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A functional check: prints it, and fails the script when it does not hold. */
function check(label, ok, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${label}${!ok && detail ? `\n${detail.trim().replace(/^/gm, "       ")}` : ""}`);
  if (ok) passed++;
  else failures.push(label);
}

/** A figure beside its target: PASS or FAIL is printed, the script goes on. */
function figure(label, value, unit, target, floor) {
  const verdict = value <= target ? "PASS" : "FAIL";
  console.log(
    `${label.padEnd(44)} ${String(value).padStart(8)} ${unit.padEnd(3)} target <= ${target} ${unit}  ${verdict}${floor === undefined ? "" : `   (floor ${floor} ${unit})`}`,
  );
}

/** Bytes on disk of a folder, as `du` counts them (allocated blocks, links not followed). */
function diskBytes(path) {
  const st = lstatSync(path);
  let total = st.blocks * 512;
  if (st.isDirectory()) for (const name of readdirSync(path)) total += diskBytes(join(path, name));
  return total;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * `require(spec)` in a fresh Node started in `cwd`, median of 5: wall milliseconds, CPU milliseconds
 * (less affected by a busy machine), and the floor: the same probe requiring a built-in module.
 */
function requireMs(spec, cwd) {
  const probe = (what) =>
    `const c = process.cpuUsage(); const t = performance.now(); ${what}; const u = process.cpuUsage(c); process.stdout.write(JSON.stringify([performance.now() - t, (u.user + u.system) / 1000]));`;
  const runs = [];
  const floor = [];
  for (let i = 0; i < 5; i++) {
    runs.push(JSON.parse(sh(process.execPath, ["-e", probe(`require(${JSON.stringify(spec)})`)], cwd).stdout));
    floor.push(JSON.parse(sh(process.execPath, ["-e", probe(`require("node:path")`)], cwd).stdout)[0]);
  }
  return {
    ms: Math.round(median(runs.map((r) => r[0]))),
    cpuMs: Math.round(median(runs.map((r) => r[1]))),
    floor: Math.round(median(floor)),
  };
}

try {
  console.log(`svc-iac install check, Node ${process.version}, in ${work}\n`);
  const noBuild = process.argv.includes("--no-build");
  const pack = sh(
    "npm",
    ["pack", "--json", "--pack-destination", work, ...(noBuild ? ["--ignore-scripts"] : [])],
    ROOT,
  );
  const tarball = pack.code === 0 ? JSON.parse(pack.stdout.slice(pack.stdout.indexOf("[")))[0]?.filename : undefined;
  check("npm pack makes a tarball", !!tarball, pack.stderr);
  if (!tarball) throw new Error("no tarball");

  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "install-check-app", private: true }, null, 2));
  const readme = readmeInstall();
  check(
    "the README's Install section installs a packed tarball (the package is not on the registry yet)",
    readme.install !== undefined,
    readme.block,
  );
  if (!readme.install) throw new Error("no install command in the README");
  const [npm, ...npmArgs] = readme.install;
  const install = sh(
    npm,
    npmArgs.map((a) => (a.endsWith(".tgz") ? join(work, tarball) : a)),
    app,
  );
  check(
    `${readme.install.join(" ")} (the README's, with this tarball) in an empty folder`,
    install.code === 0,
    install.stderr,
  );
  if (install.code !== 0) throw new Error("install failed");
  for (const line of readme.after) {
    const r = sh(line[0], line.slice(1), app);
    check(`${line.join(" ")} (the README's next command) exits 0`, r.code === 0, r.stdout + r.stderr);
  }
  const pkg = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
  check(
    "the README's install records svc-iac in devDependencies",
    typeof pkg.devDependencies?.["svc-iac"] === "string",
    JSON.stringify(pkg),
  );
  rmSync(join(app, "svc.yaml"), { force: true });
  rmSync(join(app, "canvases"), { recursive: true, force: true });
  rmSync(join(app, ".svc-iac"), { recursive: true, force: true });

  const lock = JSON.parse(readFileSync(join(app, "node_modules", ".package-lock.json"), "utf8"));
  const installed = Object.keys(lock.packages).filter((p) => p.includes("node_modules/"));
  // npm 11 asks about every install script not covered by allowScripts: there must be none to ask about.
  const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];
  const withScripts = installed.filter((p) => lock.packages[p].hasInstallScript);
  const ownScripts = Object.keys(
    JSON.parse(readFileSync(join(app, "node_modules", "svc-iac", "package.json"), "utf8")).scripts ?? {},
  ).filter((s) => INSTALL_SCRIPTS.includes(s));
  check(
    "no install scripts: none in svc-iac's package.json, none in its dependencies",
    withScripts.length === 0 && ownScripts.length === 0,
    [...withScripts, ...ownScripts].join(", "),
  );
  check(
    "npm install printed no install-script warning",
    !/allowScripts|install script/i.test(install.stderr),
    install.stderr,
  );
  check(
    "@pulumi/pulumi is not installed (an optional peer dependency)",
    !installed.some((p) => p.endsWith("node_modules/@pulumi/pulumi")),
  );

  console.log("");
  figure("packages in node_modules", installed.length, "", TARGETS.packages);
  figure(
    "node_modules size on disk",
    Math.round(diskBytes(join(app, "node_modules")) / 1e5) / 10,
    "MB",
    TARGETS.megabytes,
  );
  const req = requireMs("svc-iac", app);
  figure('require("svc-iac"), wall time', req.ms, "ms", TARGETS.requireMs, req.floor);
  figure('require("svc-iac"), CPU time', req.cpuMs, "ms", TARGETS.requireMs);
  const action = await benchActionStart({ runs: 3 });
  figure(
    "action bundle: start to first output",
    Math.round(action.first),
    "ms",
    TARGETS.actionFirstOutputMs,
    Math.round(action.floor),
  );
  console.log("");

  const svc = (...args) => sh("npx", ["--no-install", "svc-iac", ...args], app);
  const help = svc("--help");
  check(
    "npx svc-iac --help prints the usage",
    help.code === 0 && help.stdout.includes("Usage:") && help.stdout.includes("svc-iac init"),
    help.stderr,
  );
  const loaded = sh(
    process.execPath,
    [
      "-e",
      `require("svc-iac"); console.log(Object.keys(require.cache).some((f) => f.includes("@pulumi") || f.endsWith("/dist/emulator/emulator.js")))`,
    ],
    app,
  );
  // The provider plugin is a bin entry too; without the optional peer @pulumi/pulumi it says what to install, on stderr only.
  const plugin = sh("npx", ["--no-install", "pulumi-resource-svc", "127.0.0.1:1"], app);
  check(
    "npx pulumi-resource-svc without @pulumi/pulumi: exit 1, says to install it, prints nothing on stdout",
    plugin.code === 1 && plugin.stdout === "" && plugin.stderr.includes("npm install @pulumi/pulumi"),
    plugin.stdout + plugin.stderr,
  );
  const pluginVersion = sh("npx", ["--no-install", "pulumi-resource-svc", "--version"], app);
  check(
    "npx pulumi-resource-svc --version prints the version and exits 0",
    pluginVersion.code === 0 && /^\d+\.\d+\.\d+/.test(pluginVersion.stdout),
    pluginVersion.stdout + pluginVersion.stderr,
  );
  check(
    'require("svc-iac") loads neither Pulumi nor the emulator',
    loaded.code === 0 && loaded.stdout.trim() === "false",
    loaded.stderr,
  );
  const init = svc("init", "repo");
  check("svc-iac init repo writes a repository", init.code === 0, init.stderr);
  const validate = svc("validate", "repo");
  check(
    "svc-iac validate repo: valid",
    validate.code === 0 && validate.stdout.includes("Valid: 2 objects."),
    validate.stdout + validate.stderr,
  );
  const plan = svc("plan", "repo", "--detailed-exitcode");
  check(
    "svc-iac plan repo (embedded emulator): 2 to create, exit 2",
    plan.code === 2 && plan.stdout.includes("Plan: 2 to create."),
    plan.stdout + plan.stderr,
  );
  const apply = svc("apply", "repo", "--auto-approve");
  check(
    "svc-iac apply repo: applied",
    apply.code === 0 && apply.stdout.includes("Apply complete: 2 done, 0 failed"),
    apply.stdout + apply.stderr,
  );
  const again = svc("plan", "repo", "--detailed-exitcode");
  check(
    "svc-iac plan repo after apply: no changes, exit 0",
    again.code === 0 && again.stdout.includes("No changes."),
    again.stdout + again.stderr,
  );
} catch (e) {
  if (failures.length === 0) check("install check ran", false, String(e?.stack ?? e));
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`\ninstall-check: ${passed} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
