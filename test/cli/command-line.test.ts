/**
 * The command line itself, on the built command: `COMMAND --help` for every command, flags every
 * repository command accepts, and usage errors in our words (the command, the option found, the
 * options it accepts), numbers checked as svc.yaml checks them.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODE } from "../../src/errors";
import { runSvc } from "../helpers/cli-run";
import { copyRepo, FIXTURE_SECRETS } from "../helpers/repo";

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `svc-iac ...args` as a user types it, without platform credentials and with stdin closed: the
 * command line run in this process (its parsing, help and error reporting are the program's own).
 */
const svc = (args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Exit> =>
  runSvc(args, env, { cwd });

const COMMANDS = ["init", "validate", "plan", "apply", "drift", "destroy", "test", "import", "emulator"];

describe("GIVEN the built svc-iac command", () => {
  it.each(COMMANDS)(
    "WHEN %s --help or -h is asked THEN it prints that command's usage on stdout and exits 0",
    async (command) => {
      for (const flag of ["--help", "-h"]) {
        const r = await svc([command, flag]);
        expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
        expect(r.stdout).toMatch(new RegExp(`^Usage:\\n  svc-iac ${command} `));
        expect(r.stdout).not.toContain("infrastructure as code for the UDF platform");
      }
    },
  );

  it("WHEN --help comes among other flags of apply THEN it prints the usage and applies nothing (nor asks)", async () => {
    const r = await svc(["apply", copyRepo("valid-full"), "--auto-approve", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("svc-iac apply [DIR]");
    expect(r.stderr).toBe("");
  });

  it("WHEN svc-iac help plan is asked THEN it prints plan's usage", async () => {
    const r = await svc(["help", "plan"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage:\n {2}svc-iac plan \[DIR\]/);
  });

  it("WHEN an option is misspelt THEN the error names the command and the option, suggests the close one and lists what the command accepts", async () => {
    const r = await svc(["import", "--all", "--dry-run", "--no-colour"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^svc-iac: import has no option --no-colour\. Did you mean --no-color\? import accepts: --target T \(-t\), --canvas NAME, --keep ADDRESS, --all, .*--json, --no-color, --help \(-h\)\.\n/,
    );
    expect(r.stderr).toContain('Run "svc-iac import --help" for usage.');
    expect(r.stderr).not.toMatch(/parseArgs|To specify a positional argument|'/);
  });

  it("WHEN a command is mistyped THEN the error suggests the close one", async () => {
    const r = await svc(["paln"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^svc-iac: Unknown command "paln"\. Did you mean "plan"\? Expected one of: emulator, validate, plan, /,
    );
    const far = await svc(["deploy"]);
    expect(far.stderr).not.toContain("Did you mean");
  });

  it("WHEN a folder has no svc.yaml THEN the error says svc-iac init writes one", async () => {
    const empty = join(copyRepo("valid-full"), "canvases");
    const r = await svc(["plan", empty]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("svc.yaml not found");
    expect(r.stderr).toContain("To start a repository here, run: svc-iac init");
  });

  it("WHEN the platform's address refuses connections THEN the error names that address", async () => {
    const r = await svc(["plan", copyRepo("valid-full")], {
      ...FIXTURE_SECRETS,
      SVC_BASE_URL: "http://127.0.0.1:9/v1",
      SVC_TOKEN: "token-refused-123",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("connection to http://127.0.0.1:9 refused (ECONNREFUSED)");
    expect(r.stderr).toContain("SVC_BASE_URL");
    expect(r.stderr + r.stdout).not.toContain("token-refused-123");
  }, 120_000);

  it("WHEN FORCE_COLOR is set and stdout is a pipe THEN the plan is coloured; --no-color wins over it; the help names both", async () => {
    const dir = copyRepo("valid-full");
    const forced = await svc(["validate", dir], { ...FIXTURE_SECRETS, FORCE_COLOR: "1" });
    const plain = await svc(["plan", dir], { ...FIXTURE_SECRETS });
    const colored = await svc(["plan", dir], { ...FIXTURE_SECRETS, FORCE_COLOR: "1" });
    const refused = await svc(["plan", dir, "--no-color"], { ...FIXTURE_SECRETS, FORCE_COLOR: "1" });
    expect(forced.code).toBe(0);
    expect(plain.stdout).not.toContain("\x1b[");
    expect(colored.stdout).toContain("\x1b[");
    expect(refused.stdout).not.toContain("\x1b[");
    const help = await svc(["--help"]);
    expect(help.stdout).toContain("--no-color");
    expect(help.stdout).toContain("FORCE_COLOR=1");
  }, 120_000);

  it("WHEN a value looks like a negative number or an option is missing its value THEN the error says how to write it", async () => {
    const negative = await svc(["emulator", "--port", "-1"]);
    expect(negative.code).toBe(1);
    expect(negative.stderr).toMatch(/^svc-iac: emulator: --port -1: a value starting with "-" is written --port=-1\./);
    const missing = await svc(["plan", "--target", "--json"]);
    expect(missing.stderr).toMatch(
      /^svc-iac: plan: --target needs a value, found the option --json \(e\.g\. --target T/,
    );
    const atEnd = await svc(["plan", "--out"]);
    expect(atEnd.stderr).toMatch(/^svc-iac: plan: --out needs a value, found the end of the command line/);
    for (const r of [negative, missing, atEnd]) expect(r.stderr).not.toContain("ambiguous");
  });

  it.each([
    ["validate", []],
    ["plan", []],
    ["drift", []],
    ["test", []],
    ["import", ["--all", "--dry-run"]],
  ])(
    "WHEN %s gets every flag the README calls common (--target, -t, --json, --no-color) THEN none is refused",
    async (command, more) => {
      const r = await svc(
        [command, "/nonexistent-svc-iac-repo", "--target", "default", "-t", "default", "--json", "--no-color", ...more],
        { SVC_BASE_URL: "http://127.0.0.1:9/v1", SVC_TOKEN: "x" },
      );
      expect(r.code).toBe(1); // the folder or the platform is missing: the command line itself was accepted
      expect(r.stderr).not.toMatch(/option/i);
    },
  );

  it.each([
    [
      ["apply", "--auto-approve", "--concurrency", "65"],
      'Invalid --concurrency "65": expected a whole number from 1 to 64.',
    ],
    [
      ["destroy", "--auto-approve", "--concurrency", "0"],
      'Invalid --concurrency "0": expected a whole number from 1 to 64.',
    ],
    [
      ["apply", "--auto-approve", "--max-deletions", "1e3"],
      'Invalid --max-deletions "1e3": expected a whole number of at least 0.',
    ],
    [["plan", "--max-deletions", " 3"], 'Invalid --max-deletions " 3": expected a whole number of at least 0.'],
    [["emulator", "--port", "0x50"], 'Invalid --port "0x50": expected a whole number from 0 to 65535.'],
    [["emulator", "--port", ""], 'Invalid --port "": expected a whole number from 0 to 65535.'],
    [
      ["emulator", "--import-max-bytes", "1e6"],
      'Invalid --import-max-bytes "1e6": expected a whole number of at least 1.',
    ],
    [
      ["emulator", "--run-time-limit", "0x10"],
      'Invalid --run-time-limit "0x10": expected a number of seconds above 0 and at most 86400',
    ],
  ])(
    "WHEN a number flag is out of svc.yaml's bounds or not plainly written (%j) THEN it is refused naming the command and the flag",
    async (args, message) => {
      const r = await svc(args, { SVC_BASE_URL: "http://127.0.0.1:9/v1", SVC_TOKEN: "x" });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`svc-iac: ${args[0]}: ${message}`);
    },
  );

  it("WHEN plan runs on a repository in another folder without SVC_BASE_URL THEN it names the embedded emulator's state folder as reached from here", async () => {
    const dir = copyRepo("valid-full");
    const r = await svc(["plan", basename(dir)], { ...FIXTURE_SECRETS }, dirname(dir));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `using the embedded emulator (state under ${join(basename(dir), ".svc-iac", "local")}/)`,
    );
  });

  it.each(["validate", "plan", "apply", "drift", "destroy", "test"])(
    "WHEN %s is given a folder that does not exist THEN it says so (not that svc.yaml is missing), exit 1",
    async (command) => {
      const r = await svc([command, "/nonexistent-svc-iac-repo"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `svc-iac: ${command}: the folder /nonexistent-svc-iac-repo does not exist. DIR is the folder holding svc.yaml (default: the current folder).\n`,
      );
    },
  );

  it("WHEN validate is given svc.yaml itself THEN it says to give its folder", async () => {
    const dir = copyRepo("valid-full");
    const r = await svc(["validate", "svc.yaml"], {}, dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "svc-iac: validate: svc.yaml is a file, not a folder. DIR is the folder holding svc.yaml. Give its folder: svc-iac validate .",
    );
  });

  it("WHEN the help and the command reference (docs/commands.md) show a repeatable flag THEN it reads [--flag VALUE]... (one value per flag), never [--flag VALUE ...]", async () => {
    const help = (await svc(["--help"])).stdout + (await svc(["test", "--help"])).stdout;
    const readme = readFileSync(join(__dirname, "../../docs/commands.md"), "utf8");
    for (const text of [help, readme]) {
      expect(text).not.toMatch(/--[a-z-]+ [A-Z]+ \.\.\./);
      expect(text).toContain("svc-iac test");
      expect(text).toMatch(/svc-iac test +\[DIR\] \[--target T\] \[--only ADDRESS\]\.\.\. \[--json\]/);
    }
    expect(help).toContain("[--canvas NAME]...");
  });
});

describe("GIVEN --json and a command that stops before it has a document", () => {
  it("THEN stdout still holds one JSON document saying why, with its stable code: usage errors, a missing folder, a refused keep", async () => {
    const dir = copyRepo("valid-full");
    const cases = [
      { args: ["plan", dir, "--json", "--jsno"], says: "plan has no option --jsno", code: "usage" },
      { args: ["plan", join(dir, "nowhere"), "--json"], says: "does not exist", code: "repository_folder_missing" },
      { args: ["apply", dir, "--json", "--max-deletions", "1e3"], says: "--max-deletions", code: "usage" },
      { args: ["import", dir, "--keep", "canvas.nope", "--json"], says: "", code: expect.stringMatching(ERROR_CODE) },
    ];
    for (const c of cases) {
      const r = await svc(c.args, { ...FIXTURE_SECRETS, SVC_BASE_URL: "http://127.0.0.1:9/v1", SVC_TOKEN: "t" });
      const doc = JSON.parse(r.stdout);
      expect(doc, c.args.join(" ")).toHaveProperty("errors");
      expect(typeof doc.message, c.args.join(" ")).toBe("string");
      expect(doc.message).toContain(c.says);
      expect(doc.code, c.args.join(" ")).toEqual(c.code);
    }
  });

  it("THEN a refusal deeper in the run has its own code too (a platform URL without a token: no_credentials)", async () => {
    const r = await runSvc(["plan", copyRepo("valid-full"), "--json"], {
      ...FIXTURE_SECRETS,
      SVC_BASE_URL: "http://127.0.0.1:9/v1",
    });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      code: "no_credentials",
      message: expect.stringContaining("SVC_BASE_URL is set but neither SVC_TOKEN nor SVC_SERVICE_TOKEN is"),
    });
  });
});

describe("GIVEN svc-iac help NAME", () => {
  it("THEN a command's usage is printed (exit 0), and an unknown name is a usage error (exit 1)", async () => {
    const plan = await svc(["help", "plan"]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^Usage:\n {2}svc-iac plan /);
    const nosuch = await svc(["help", "nosuch"]);
    expect(nosuch.code).toBe(1);
    expect(nosuch.stderr).toContain('help: unknown command "nosuch". Expected one of:');
  });
});
