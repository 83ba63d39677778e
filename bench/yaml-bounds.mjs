// Hostile YAML is refused fast: the 12-line alias bomb (9 levels, 10^9 values once expanded) and a
// file nested 10,000 levels deep, each parsed by the loader's bounded parse (in this process, median
// of several runs) and validated by `svc-iac validate` in its own process. Floors from the same run:
// parsing a normal file of the same size, and validating the same repository without the bomb.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const ROOT = join(import.meta.dirname, "..");
const CLI = join(ROOT, "dist/cli/main.js");
const FIXTURE = join(ROOT, "test/fixtures/valid-full");
const SETTINGS = "canvases/listings/loader.yaml";
const ENV = { MAPBOX_TOKEN: "bench-mapbox", LISTINGS_PASSCODE: "bench-passcode" };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `l0: &l0 [x ×10]`, `lN: &lN [*lN-1 ×10]`: 10^levels values from a few hundred bytes. */
export function aliasBomb(levels = 9) {
  const lines = ["entrypoint: udf", "metadata:", `  l0: &l0 [${Array(10).fill("x").join(", ")}]`];
  for (let i = 1; i <= levels; i++)
    lines.push(
      `  l${i}: &l${i} [${Array(10)
        .fill(`*l${i - 1}`)
        .join(", ")}]`,
    );
  return `${lines.join("\n")}\n`;
}

export const deepFile = (levels = 10_000) =>
  `entrypoint: udf\nmetadata:\n  x: ${"[".repeat(levels)}${"]".repeat(levels)}\n`;

/** A UDF settings file of ordinary keys and values, at least `bytes` long. */
function normalFile(bytes) {
  const lines = ["entrypoint: udf", "metadata:"];
  for (let i = 0; lines.join("\n").length < bytes; i++) lines.push(`  key_${i}: [value ${i}, ${i}]`);
  return `${lines.join("\n")}\n`;
}

/** Median ms of `runs` calls of `fn`. */
function timeOf(fn, runs = 7) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

/** Wall ms of `svc-iac validate` on valid-full with `settings` as the UDF's settings (the fixture's own when undefined), and its first stderr line. */
function validateTime(settings) {
  const dir = join(mkdtempSync(join(tmpdir(), "svc-yaml-bench-")), "repo");
  try {
    cpSync(FIXTURE, dir, { recursive: true });
    if (settings !== undefined) writeFileSync(join(dir, SETTINGS), settings);
    const t = performance.now();
    const r = spawnSync(process.execPath, [CLI, "validate", dir], {
      env: { ...process.env, ...ENV },
      encoding: "utf8",
    });
    return { ms: performance.now() - t, code: r.status, first: (r.stderr || r.stdout).split("\n")[0] };
  } finally {
    rmSync(join(dir, ".."), { recursive: true, force: true });
  }
}

/** Runs the figures; `line(label, value, note)` prints one. */
export async function benchYamlBounds(line) {
  const { parseBoundedYaml } = require(join(ROOT, "dist/repository/yaml-parse.js"));
  for (const [label, text] of [
    ["alias bomb, 9 levels (12 lines)", aliasBomb()],
    ["10,000 nested lists", deepFile()],
  ]) {
    const refused = parseBoundedYaml(text);
    const normal = normalFile(text.length);
    const ms = timeOf(() => parseBoundedYaml(text));
    const floor = timeOf(() => parseBoundedYaml(normal));
    line(
      `${label} (${text.length} B): refused in, ms`,
      ms.toFixed(2),
      `target < 1000 (${!refused.ok && ms < 1000 ? "PASS" : "FAIL"}): ${refused.ok ? "NOT REFUSED" : "refused"}`,
    );
    line(`  floor: a normal file of ${text.length} B, ms`, floor.toFixed(2), "");
  }
  const bomb = validateTime(aliasBomb());
  const deep = validateTime(deepFile());
  const floor = validateTime(undefined);
  // A process's wall time is mostly Node's start and loading the command, so the target is the floor plus one second.
  const verdict = (r) => `target < floor + 1000 (${r.ms < floor.ms + 1000 ? "PASS" : "FAIL"}); exit ${r.code}`;
  line(
    "svc-iac validate, bomb in a UDF: wall ms",
    Math.round(bomb.ms),
    `${verdict(bomb)}: ${bomb.first.slice(0, 50)}…`,
  );
  line("svc-iac validate, 10,000 levels: wall ms", Math.round(deep.ms), verdict(deep));
  line("  floor: validate of the same repository, ms", Math.round(floor.ms), `exit ${floor.code}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchYamlBounds((label, value, note) =>
    console.log(`${label.padEnd(44)} ${String(value).padStart(10)}   ${note ?? ""}`),
  );
}
