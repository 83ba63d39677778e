/**
 * The package's entry points as a user's program loads them (a separate Node process, through the
 * package's `exports` map): the root loads neither Pulumi nor the emulator until used, and the
 * Pulumi resources are at `svc-iac/pulumi`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..");
const program = mkdtempSync(join(tmpdir(), "svc-entry-"));
mkdirSync(join(program, "node_modules"));
symlinkSync(ROOT, join(program, "node_modules", "svc-iac"), "dir");
afterAll(() => rmSync(program, { recursive: true, force: true }));

/** Runs a script in the program folder and returns what it printed as JSON. */
function run(script: string): any {
  const loaded = `const loaded = () => Object.keys(require.cache).map((f) => f.replace(/\\\\/g, "/"));`;
  return JSON.parse(
    execFileSync(
      process.execPath,
      ["-e", `${loaded}\n(async () => { ${script} })().catch((e) => { console.error(e); process.exit(1); });`],
      { cwd: program, encoding: "utf8" },
    ),
  );
}

describe('require("svc-iac")', () => {
  it("loads neither Pulumi nor the emulator, and still offers the client and the reconciler", () => {
    const out = run(`const svc = require("svc-iac");
      const files = loaded();
      console.log(JSON.stringify({ pulumi: files.some((f) => f.includes("/@pulumi/")), emulator: files.some((f) => f.includes("/dist/emulator/emulator.js")),
        names: ["createClient", "startEmulator", "planCommand", "ManualClock"].filter((n) => typeof svc[n] === "function"), canvas: "Canvas" in svc }));`);
    expect(out).toEqual({
      pulumi: false,
      emulator: false,
      names: ["createClient", "startEmulator", "planCommand", "ManualClock"],
      canvas: false,
    });
  });

  it("WHEN startEmulator is called THEN the emulator loads and answers the client (the README's example)", () => {
    const out = run(`const { startEmulator, createClient } = require("svc-iac");
      const emu = await startEmulator();
      const client = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.user_token });
      const me = await client.account.getSelf();
      await client.close(); await emu.close();
      console.log(JSON.stringify({ user: typeof me.id, pulumi: loaded().some((f) => f.includes("/@pulumi/")) }));`);
    expect(out).toEqual({ user: "string", pulumi: false });
  });
});

describe('require("svc-iac/pulumi")', () => {
  it("offers every Pulumi resource class", () => {
    const out = run(`const svc = require("svc-iac/pulumi"); console.log(JSON.stringify(Object.keys(svc).sort()));`);
    expect(out).toEqual([
      "BucketPolicy",
      "Canvas",
      "CanvasShare",
      "Cronjob",
      "Secret",
      "ServiceAccount",
      "SessionToken",
      "Udf",
    ]);
  });

  it("keeps the serialized stub's runtime at svc-iac/provider-runtime, without Pulumi", () => {
    const out = run(`const rt = require("svc-iac/provider-runtime");
      console.log(JSON.stringify({ fns: ["configure", "check", "diff", "create", "read", "update", "remove"].every((n) => typeof rt[n] === "function"), pulumi: loaded().some((f) => f.includes("/@pulumi/")) }));`);
    expect(out).toEqual({ fns: true, pulumi: false });
  });
});

describe("the published package.json", () => {
  it("has no install script npm would run (or ask about) in a user's install, and builds dist/ on pack instead", () => {
    const pkg = JSON.parse(
      execFileSync(process.execPath, ["-p", `JSON.stringify(require(${JSON.stringify(join(ROOT, "package.json"))}))`], {
        encoding: "utf8",
      }),
    ) as { scripts: Record<string, string> };
    expect(
      Object.keys(pkg.scripts).filter((s) => ["preinstall", "install", "postinstall", "prepare"].includes(s)),
    ).toEqual([]);
    expect(pkg.scripts.prepack).toBe("npm run build");
  });
});
