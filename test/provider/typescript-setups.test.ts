/**
 * `import * as svc from "svc-iac/pulumi"` type-checks in the TypeScript setups Pulumi users have:
 * the tsconfig `pulumi new typescript` writes (moduleResolution node, i.e. node10), node16,
 * nodenext and bundler, with TypeScript 6 (the dev dependency) and TypeScript 5 (what the Pulumi
 * template installs; packed from the registry into a cache folder once, the shared node_modules
 * untouched). The package is the packed tarball, installed in a temporary program folder.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtCli } from "../helpers/repo";

const ROOT = join(__dirname, "../..");
const work = mkdtempSync(join(tmpdir(), "svc-ts-setups-"));
const program = join(work, "program");

/** The tsconfig.json `pulumi new typescript` writes (pulumi/templates, typescript/tsconfig.json). */
const PULUMI_NEW_TSCONFIG = {
  compilerOptions: {
    strict: true,
    outDir: "bin",
    target: "es2020",
    module: "commonjs",
    moduleResolution: "node",
    sourceMap: true,
    experimentalDecorators: true,
    pretty: true,
    noFallthroughCasesInSwitch: true,
    noImplicitReturns: true,
    forceConsistentCasingInFileNames: true,
  },
  files: ["index.ts"],
};

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as svc from "svc-iac/pulumi";
import { createClient } from "svc-iac";

const canvas = new svc.Canvas("reports", { name: "reports" });
new svc.Udf("daily", { canvasId: canvas.id, slug: "daily", codePath: "udfs/daily.py" });
export const canvasId: pulumi.Output<string> = canvas.id;
export const client: typeof createClient = createClient;
// @ts-expect-error: the resources have typed inputs, so a misspelt one is an error (the types are really read)
new svc.Canvas("typo", { nmae: "reports" });
`;

/** TypeScript 5's tsc: `npm pack typescript@5` into a cache folder kept between runs; undefined when the registry cannot be reached. */
function typescript5(): string | undefined {
  const cache = join(tmpdir(), "svc-iac-typescript-5");
  const tsc = join(cache, "package", "bin", "tsc");
  if (existsSync(tsc)) return tsc;
  mkdirSync(cache, { recursive: true });
  try {
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "typescript@5", "--json", "--pack-destination", cache], {
        cwd: cache,
        encoding: "utf8",
        timeout: 120_000,
      }),
    ) as { filename: string }[];
    execFileSync("tar", ["xzf", packed[0]!.filename], { cwd: cache });
    return existsSync(tsc) ? tsc : undefined;
  } catch {
    return undefined;
  }
}

const TSC: Record<string, string | undefined> = { 6: join(ROOT, "node_modules/typescript/bin/tsc"), 5: typescript5() };

beforeAll(() => {
  builtCli();
  // The package as published (npm pack: its files, its package.json), in the program's node_modules;
  // the rest (@pulumi/pulumi, svc-iac's dependencies) from the project's node_modules, and of the
  // @types only node, as a Pulumi program has.
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], {
      cwd: ROOT,
      encoding: "utf8",
    }).replace(/^[^[]*/, ""),
  ) as { filename: string }[];
  mkdirSync(join(program, "node_modules", "@types"), { recursive: true });
  execFileSync("tar", ["xzf", join(work, packed[0]!.filename)], { cwd: work });
  execFileSync("mv", [join(work, "package"), join(program, "node_modules", "svc-iac")]);
  for (const name of readdirSync(join(ROOT, "node_modules"))) {
    if (!["svc-iac", "@types", ".bin", "typescript"].includes(name))
      symlinkSync(join(ROOT, "node_modules", name), join(program, "node_modules", name));
  }
  symlinkSync(join(ROOT, "node_modules/@types/node"), join(program, "node_modules/@types/node"));
  writeFileSync(join(program, "index.ts"), PROGRAM);
}, 600_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `tsc --noEmit -p` on the program with this compilerOptions: its exit code and output. */
async function typeCheck(
  version: string,
  compilerOptions: Record<string, unknown>,
): Promise<{ code: number; out: string }> {
  const file = `tsconfig.${Math.random().toString(36).slice(2)}.json`;
  writeFileSync(
    join(program, file),
    JSON.stringify({
      ...PULUMI_NEW_TSCONFIG,
      compilerOptions: { ...PULUMI_NEW_TSCONFIG.compilerOptions, ...compilerOptions },
    }),
  );
  return promisify(execFile)(process.execPath, [TSC[version]!, "--noEmit", "--pretty", "false", "-p", file], {
    cwd: program,
    timeout: 540_000,
  }).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
}

const SETUPS: [string, Record<string, unknown>][] = [
  ["node16", { module: "node16", moduleResolution: "node16", skipLibCheck: true }],
  ["nodenext", { module: "nodenext", moduleResolution: "nodenext", skipLibCheck: true }],
  ["bundler", { module: "esnext", moduleResolution: "bundler", skipLibCheck: true }],
];

describe.each(["6", "5"])("GIVEN a Pulumi program importing svc-iac/pulumi and TypeScript %s", (version) => {
  const skip = !TSC[version];
  it.skipIf(skip)(
    "WHEN it is checked with the tsconfig pulumi new typescript writes (moduleResolution node10) THEN it compiles",
    async () => {
      // TypeScript 6 deprecates node10 and asks for ignoreDeprecations (5 knows no "6.0"); under 5,
      // zod 4's own declarations (.d.cts) need esModuleInterop, which 6 turns on by default.
      const r = await typeCheck(version, version === "6" ? { ignoreDeprecations: "6.0" } : { esModuleInterop: true });
      expect(r.out).toBe("");
      expect(r.code).toBe(0);
    },
    600_000,
  );

  it.skipIf(skip).each(SETUPS)(
    "WHEN it is checked under moduleResolution %s THEN it compiles",
    async (_name, options) => {
      const r = await typeCheck(version, options);
      expect(r.out).toBe("");
      expect(r.code).toBe(0);
    },
    600_000,
  );
});
