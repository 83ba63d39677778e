/**
 * `svc-iac init [DIR]` as a user runs it (the built command, a separate process): the repository
 * it writes validates and applies on the embedded emulator, its schema comments lead an editor to
 * the installed package's schemas (and the files satisfy them), and it never overwrites a file.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runSvc } from "../helpers/cli-run";
import { builtCli } from "../helpers/repo";

const ROOT = join(__dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "svc-init-"));

/** Runs the built command in `cwd` with no platform configured (the embedded emulator). */
async function svc(cwd: string, ...args: string[]) {
  const env = { ...process.env, SVC_BASE_URL: "", SVC_TOKEN: "" } as Record<string, string>;
  return runSvc(args, env, { cwd });
}

const SCHEMA_COMMENT = /^# yaml-language-server: \$schema=(\S+)\n/;

beforeAll(() => {
  builtCli();
  // A project with svc-iac installed at its root, as `npm install --save-dev svc-iac` leaves it.
  mkdirSync(join(work, "app", "node_modules"), { recursive: true });
  symlinkSync(ROOT, join(work, "app", "node_modules", "svc-iac"), "dir");
}, 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("svc-iac init", () => {
  it("GIVEN a project with svc-iac installed WHEN init infra THEN it writes svc.yaml, one canvas with one UDF and a .gitignore", async () => {
    const r = await svc(join(work, "app"), "init", "infra");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'Wrote a svc-iac repository for project "infra" (named after the folder; --project NAME chooses another) in infra:',
    );
    for (const f of [
      ".gitignore",
      "svc.yaml",
      "canvases/infra/canvas.yaml",
      "canvases/infra/hello.py",
      "canvases/infra/hello.yaml",
    ])
      expect(existsSync(join(work, "app", "infra", f)), f).toBe(true);
    expect(readFileSync(join(work, "app", "infra", ".gitignore"), "utf8")).toMatch(/^\.svc-iac\/$/m);
  });

  it("THEN every YAML file points at the installed package's schema for its kind, and satisfies it", async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    for (const [file, kind] of [
      ["svc.yaml", "svc"],
      ["canvases/infra/canvas.yaml", "canvas"],
      ["canvases/infra/hello.yaml", "udf"],
    ]) {
      const path = join(work, "app", "infra", file);
      const text = readFileSync(path, "utf8");
      const ref = SCHEMA_COMMENT.exec(text)?.[1];
      expect(ref, file).toMatch(new RegExp(`^(\\.\\./)+node_modules/svc-iac/schemas/${kind}\\.schema\\.json$`));
      // Resolved as the editor does, relative to the YAML file: the installed package's file.
      const schemaFile = resolve(dirname(path), ref!);
      expect(schemaFile).toBe(join(work, "app", "node_modules", "svc-iac", "schemas", `${kind}.schema.json`));
      const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, "utf8")));
      expect(validate(parse(text)) ? [] : validate.errors, file).toEqual([]);
    }
  });

  it("THEN it validates, applies on the embedded emulator, and plans no changes after", async () => {
    const dir = join(work, "app", "infra");
    expect(await svc(dir, "validate")).toMatchObject({ code: 0, stdout: expect.stringContaining("Valid: 2 objects.") });
    const applied = await svc(dir, "apply", "--auto-approve");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("created canvas.infra");
    expect(applied.stdout).toContain("created udf.infra/hello");
    const again = await svc(dir, "plan", "--detailed-exitcode");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("No changes.");
  });

  it("WHEN svc.yaml or another of its files exists THEN it names them, writes nothing (the .gitignore neither) and exits 1", async () => {
    const dir = join(work, "partly");
    mkdirSync(join(dir, "canvases", "partly"), { recursive: true });
    writeFileSync(join(dir, "svc.yaml"), "project: mine\n");
    writeFileSync(join(dir, "canvases", "partly", "hello.py"), "# mine\n");
    writeFileSync(join(dir, ".gitignore"), "node_modules/\n");
    const r = await svc(dir, "init");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("these files exist already: canvases/partly/hello.py, svc.yaml");
    expect(readFileSync(join(dir, "svc.yaml"), "utf8")).toBe("project: mine\n");
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("node_modules/\n");
    expect(existsSync(join(dir, "canvases", "partly", "canvas.yaml"))).toBe(false);
  });

  it("GIVEN an existing repository with its own .gitignore (the README's Install flow) WHEN init runs THEN it writes its files and appends .svc-iac/ to the .gitignore, keeping what it held", async () => {
    const dir = join(work, "existing");
    mkdirSync(dir);
    writeFileSync(join(dir, ".gitignore"), "node_modules/\ndist/");
    const r = await svc(dir, "init");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("  .gitignore (added .svc-iac/ to the existing file)\n");
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe(
      "node_modules/\ndist/\n\n# svc-iac's local state: the embedded emulator's data and the default inventory.\n.svc-iac/\n",
    );
    expect(existsSync(join(dir, "svc.yaml"))).toBe(true);
    expect((await svc(dir, "validate")).code).toBe(0);
  });

  it("GIVEN a cloned folder whose canvases/ links outside it, or whose .gitignore is a link out or a FIFO WHEN init runs THEN it answers at once, names the link, and writes nothing anywhere", async () => {
    const outside = mkdtempSync(join(tmpdir(), "svc-init-outside-"));
    writeFileSync(join(outside, "rc"), "export PATH=/usr/bin\n");
    const cases: [string, (dir: string) => void, string][] = [
      [
        "linked-canvases",
        (dir) => symlinkSync(outside, join(dir, "canvases")),
        "canvases is a symbolic link to a folder outside the repository: refused",
      ],
      [
        "linked-gitignore",
        (dir) => symlinkSync(join(outside, "rc"), join(dir, ".gitignore")),
        ".gitignore is a symbolic link to a file outside the repository: refused",
      ],
      [
        "fifo-gitignore",
        (dir) => execFileSync("mkfifo", [join(dir, ".gitignore")]),
        ".gitignore is a FIFO (named pipe), expected a regular file: refused",
      ],
    ];
    for (const [name, plant, says] of cases) {
      const dir = join(work, name);
      mkdirSync(dir);
      plant(dir);
      const r = await svc(dir, "init");
      expect(r.code, name).toBe(1);
      expect(r.stderr).toContain(`svc-iac init: not writing anything in ${dir}: ${says}`);
      expect(existsSync(join(dir, "svc.yaml"))).toBe(false);
    }
    expect(readdirSync(outside)).toEqual(["rc"]);
    expect(readFileSync(join(outside, "rc"), "utf8")).toBe("export PATH=/usr/bin\n");
  });

  it("GIVEN a .gitignore that ignores /.svc-iac already WHEN init runs THEN the .gitignore is left as it was", async () => {
    const dir = join(work, "ignoring");
    mkdirSync(dir);
    writeFileSync(join(dir, ".gitignore"), "/.svc-iac\n*.log\n");
    const r = await svc(dir, "init");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("  .gitignore (ignores .svc-iac/ already: left as it was)\n");
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("/.svc-iac\n*.log\n");
  });

  it("WHEN the folder's name holds a space THEN the project is named after it (my-project) saying so, and the next commands quote the folder", async () => {
    const r = await svc(work, "init", "My Project");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `Wrote a svc-iac repository for project "my-project" (named after the folder; --project NAME chooses another) in 'My Project':`,
    );
    expect(r.stdout).toContain(
      "Next: svc-iac validate 'My Project', then svc-iac plan 'My Project' and svc-iac apply 'My Project'",
    );
  });

  it("WHEN --schemas is a URL THEN the comments point at it, and --project names the project", async () => {
    const r = await svc(
      work,
      "init",
      "web",
      "--project",
      "listings",
      "--schemas",
      "https://schemas.example.org/svc-iac/0.1.0/",
    );
    expect(r.code).toBe(0);
    expect(readFileSync(join(work, "web", "svc.yaml"), "utf8")).toMatch(
      /^# yaml-language-server: \$schema=https:\/\/schemas\.example\.org\/svc-iac\/0\.1\.0\/svc\.schema\.json\n[\s\S]*^project: listings$/m,
    );
    expect(readFileSync(join(work, "web", "canvases", "listings", "hello.yaml"), "utf8")).toMatch(
      /^# yaml-language-server: \$schema=https:\/\/schemas\.example\.org\/svc-iac\/0\.1\.0\/udf\.schema\.json\n/,
    );
  });

  it("WHEN the project name is invalid THEN it says what a name may hold, and writes nothing", async () => {
    const r = await svc(work, "init", "bad", "--project", "Bad Name");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'Invalid --project "Bad Name". A project name uses lower-case letters, digits, "_" and "-"',
    );
    expect(existsSync(join(work, "bad"))).toBe(false);
  });
});
