/**
 * The command on a Node older than the package supports: one line naming the Node found and the
 * one needed, exit 1, for every command (run under the machine's own older Node when it has one),
 * and `engines` in package.json saying what the dependencies need.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { isAtLeast, MIN_NODE_VERSION, nodeVersionProblem } from "../../src/cli/node-version";
import { builtCli, copyRepo } from "../helpers/repo";
import { minimalEnv } from "../helpers/process-env";

const ROOT = join(__dirname, "../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};

/** A Node older than {@link MIN_NODE_VERSION} installed on this machine (the system's), if any. */
const oldNode = ["/usr/bin/node", "/usr/local/bin/node"].find((path) => {
  if (!existsSync(path)) return false;
  const version = execFileSync(path, ["--version"], { encoding: "utf8" }).trim();
  return !isAtLeast(version, MIN_NODE_VERSION);
});

let main: string;
beforeAll(() => {
  main = builtCli();
}, 120_000);

describe("GIVEN the package's supported Node versions", () => {
  it("WHEN package.json is read THEN engines.node is the version the command checks", () => {
    expect(pkg.engines.node).toBe(`>=${MIN_NODE_VERSION.replace(/\.0$/, "")}`);
  });

  it("WHEN each dependency's own engines.node is read THEN the oldest supported Node satisfies it", () => {
    for (const name of Object.keys(pkg.dependencies)) {
      const wants = (
        JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as {
          engines?: { node?: string };
        }
      ).engines?.node;
      const floor = wants?.match(/>=\s*v?(\d+(?:\.\d+){0,2})/)?.[1];
      if (floor) expect(isAtLeast(MIN_NODE_VERSION, floor), `${name} needs Node ${wants}`).toBe(true);
    }
  });

  it("WHEN the running Node is older THEN the problem is one line naming the found and needed versions", () => {
    const line = nodeVersionProblem("v20.20.2");
    expect(line).toMatch(/^svc-iac: needs Node\.js 22\.19\.0 or newer; this is Node\.js 20\.20\.2 [^\n]*\n$/);
    expect(nodeVersionProblem("v22.19.0")).toBeUndefined();
    expect(nodeVersionProblem("v24.1.0")).toBeUndefined();
    expect(nodeVersionProblem("v22.18.9")).toBeDefined();
  });
});

describe.skipIf(!oldNode)(`GIVEN the built command run by an older Node (${oldNode})`, () => {
  const COMMANDS = [
    ["--help"],
    ["--version"],
    ["init", "x"],
    ["validate"],
    ["plan"],
    ["apply", "--auto-approve"],
    ["drift"],
    ["destroy"],
    ["import", "--all"],
    ["test"],
    ["emulator"],
    ["nonsense"],
  ];
  it.each(COMMANDS)(
    "WHEN svc-iac %s runs THEN it prints one line naming both versions and exits 1",
    async (...args) => {
      const dir = copyRepo("valid-full");
      const r = await promisify(execFile)(oldNode!, [main, ...args], {
        cwd: dir,
        env: { ...minimalEnv() },
        timeout: 30_000,
      }).then(
        () => ({ code: 0, stdout: "", stderr: "" }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      const found = execFileSync(oldNode!, ["--version"], { encoding: "utf8" }).trim().slice(1);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr.split("\n")).toEqual([
        expect.stringContaining(`needs Node.js ${MIN_NODE_VERSION} or newer; this is Node.js ${found}`),
        "",
      ]);
      expect(r.stderr).not.toContain("node:sqlite");
    },
  );
});
