/**
 * The repository is a jail, tried as a hostile pull request would: real symbolic links (to
 * /proc/self/environ with a fake secret in the command's environment, to files and folders outside
 * the repository), a bucket-policy output through a linked folder and into .git, a FIFO, an
 * oversized file, a state folder linked outside. Each run exits 1 naming the file, shows none of
 * the target's content, writes nothing outside the repository and sends nothing to the platform
 * (a counting stand-in for it must see no request).
 */
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runInProcess, type Ran } from "../../helpers/cli-run";
import { builtCli, copyRepo, FIXTURE_SECRETS } from "../../helpers/repo";
import { useCountingPlatform } from "../../helpers/counting-platform";

const FAKE_DATABASE_URL = "postgres://app:hunter2-jail-secret-51c0@db.internal/prod";
const OUTSIDE_CONTENT = "OUTSIDE-THE-REPOSITORY-9d41e7";

const platform = useCountingPlatform();
beforeEach(() => {
  platform.reset();
});
let main: string;
beforeAll(() => {
  main = builtCli();
}, 300_000);

const env = () => ({
  SVC_BASE_URL: platform.url,
  SVC_UDF_BASE_URL: platform.url,
  SVC_TOKEN: "user-token-jail-test-77aa",
  DATABASE_URL: FAKE_DATABASE_URL,
  ...FIXTURE_SECRETS,
});

/** A folder outside any repository holding a file with distinctive content. */
function outsideFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-outside-"));
  writeFileSync(join(dir, "secret.py"), `# ${OUTSIDE_CONTENT}\ndef udf():\n    return 1\n`);
  return dir;
}

/** validate, plan (with --out inside the repository) and apply, in-process; every output together. */
async function everyCommand(dir: string): Promise<{ runs: Ran[]; text: string }> {
  const runs = [
    await runInProcess("validate", [dir], env()),
    await runInProcess("plan", [dir, "--out", join(dir, "plan.json")], env()),
    await runInProcess("apply", [dir, "--auto-approve"], env()),
  ];
  const written = ["plan.json"]
    .map((f) => join(dir, f))
    .filter(existsSync)
    .map((f) => readFileSync(f, "utf8"));
  return { runs, text: [...runs.flatMap((r) => [r.stdout, r.stderr]), ...written].join("\n") };
}

function expectRefused(
  result: { runs: Ran[]; text: string },
  where: RegExp,
  content: string[] = [OUTSIDE_CONTENT],
): void {
  for (const r of result.runs) {
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(where);
  }
  for (const c of [...content, FAKE_DATABASE_URL, "hunter2"]) expect(result.text).not.toContain(c);
  expect(platform.requests).toBe(0);
}

describe("GIVEN a repository whose files are symbolic links", () => {
  it("WHEN a UDF file links to /proc/self/environ and the command's environment holds a password THEN every command exits 1 at the link, and the environment is in no output", async () => {
    const dir = copyRepo("valid-full");
    rmSync(join(dir, "canvases/listings/stats.py"));
    symlinkSync("/proc/self/environ", join(dir, "canvases/listings/stats.py"));
    // A real process, so /proc/self/environ is the command's own environment with the password in it.
    for (const command of ["validate", "plan"]) {
      const out = command === "plan" ? ["--out", join(dir, "report.json")] : [];
      const child = spawn(process.execPath, [main, command, dir, ...out], { env: { ...process.env, ...env() } });
      let log = "";
      child.stdout.on("data", (c) => (log += String(c)));
      child.stderr.on("data", (c) => (log += String(c)));
      const code = await new Promise<number | null>((r) => child.on("close", r));
      expect(code).toBe(1);
      expect(log).toMatch(
        /canvases\/listings\/stats\.py:1:1: canvases\/listings\/stats\.py is a symbolic link to a file outside the repository: refused, nothing of it is read/,
      );
      expect(log).not.toContain("hunter2");
      expect(log).not.toContain(FAKE_DATABASE_URL);
      expect(existsSync(join(dir, "report.json"))).toBe(false);
    }
    expect(platform.requests).toBe(0);
  }, 60_000);

  it("WHEN a UDF file links to a file outside the repository THEN it is refused by name and its content shown nowhere", async () => {
    const dir = copyRepo("valid-full");
    rmSync(join(dir, "canvases/listings/stats.py"));
    symlinkSync(join(outsideFolder(), "secret.py"), join(dir, "canvases/listings/stats.py"));
    expectRefused(
      await everyCommand(dir),
      /canvases\/listings\/stats\.py:1:1: canvases\/listings\/stats\.py is a symbolic link to a file outside the repository/,
    );
  });

  it("WHEN a helper module (headers:) links outside THEN it is refused at the headers entry that names it", async () => {
    const dir = copyRepo("valid-full");
    rmSync(join(dir, "canvases/listings/lib/utils.py"));
    symlinkSync(join(outsideFolder(), "secret.py"), join(dir, "canvases/listings/lib/utils.py"));
    expectRefused(
      await everyCommand(dir),
      /canvases\/listings\/loader\.yaml:11:11: headers\[0\]\.file: found "lib\/utils\.py": canvases\/listings\/lib\/utils\.py is a symbolic link to a file outside the repository/,
    );
  });

  it("WHEN a canvas folder links outside THEN the folder is refused and nothing in it is read", async () => {
    const dir = copyRepo("valid-full");
    const outside = outsideFolder();
    writeFileSync(join(outside, "canvas.yaml"), `dashboard_body: "${OUTSIDE_CONTENT}"\n`);
    symlinkSync(outside, join(dir, "canvases/elsewhere"));
    expectRefused(
      await everyCommand(dir),
      /canvases\/elsewhere:1:1: canvases\/elsewhere is a symbolic link to a folder outside the repository/,
    );
  });

  it("WHEN a link stays inside the repository THEN it is followed: the UDF validates with the linked code", async () => {
    const dir = copyRepo("valid-full");
    mkdirSync(join(dir, "shared/udfs"), { recursive: true });
    writeFileSync(join(dir, "shared/udfs/stats.py"), "def udf():\n    return 7\n");
    rmSync(join(dir, "canvases/listings/stats.py"));
    symlinkSync("../../shared/udfs/stats.py", join(dir, "canvases/listings/stats.py"));
    const r = await runInProcess("validate", [dir], env());
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  it("WHEN svc.yaml links to a file under .git THEN it is refused, even though .git is inside the repository", async () => {
    const dir = copyRepo("valid-full");
    execFileSync("git", ["init", "-q", dir]);
    writeFileSync(join(dir, ".git/config"), `[http]\n  extraheader = AUTHORIZATION: basic ${OUTSIDE_CONTENT}\n`);
    mkdirSync(join(dir, "shared/more"), { recursive: true });
    symlinkSync("../../.git/config", join(dir, "shared/more/config.py"));
    writeFileSync(
      join(dir, "canvases/listings/stats.yaml"),
      "headers:\n  - module: cfg\n    file: ../../shared/more/config.py\n",
    );
    expectRefused(
      await everyCommand(dir),
      /canvases\/listings\/stats\.yaml:3:11: headers\[0\]\.file: found "..\/..\/shared\/more\/config\.py": shared\/more\/config\.py leads into \.git\//,
    );
  });
});

describe("GIVEN a repository whose links lead nowhere", () => {
  it("WHEN a UDF file is replaced by a link to nothing THEN every command exits 1 at the link, rather than planning as if the UDF were gone", async () => {
    const dir = copyRepo("valid-full");
    rmSync(join(dir, "canvases/listings/stats.py"));
    symlinkSync("stats-moved.py", join(dir, "canvases/listings/stats.py"));
    expectRefused(
      await everyCommand(dir),
      /canvases\/listings\/stats\.py:1:1: canvases\/listings\/stats\.py is a symbolic link to nothing \(its target does not exist\), expected a file: refused/,
    );
  });

  it("WHEN svc.yaml is a link to nothing THEN it is refused as that, not reported as missing", async () => {
    const dir = copyRepo("valid-full");
    rmSync(join(dir, "svc.yaml"));
    symlinkSync("/nonexistent/svc.yaml", join(dir, "svc.yaml"));
    const r = await runInProcess("validate", [dir], env());
    expect(r.code).toBe(1);
    // Files are named as reached from where the command runs: DIR joined.
    expect(r.stderr.replaceAll(`${dir}/`, "")).toMatch(
      /^svc\.yaml:1:1: svc\.yaml is a symbolic link to nothing \(its target does not exist\), expected a file: refused$/m,
    );
  });
});

describe("GIVEN a repository that names paths to write", () => {
  it("WHEN a bucket policy's output goes through a folder linked outside THEN validate, plan and apply exit 1 at output:, and nothing is written outside", async () => {
    const dir = copyRepo("valid-full");
    const outside = mkdtempSync(join(tmpdir(), "svc-outside-"));
    symlinkSync(outside, join(dir, "policies"));
    expectRefused(
      await everyCommand(dir),
      /bucket-policies\.yaml:3:13: bucket_policies\.demo-bucket\.output: found "policies\/demo-bucket\.json", expected a file path inside the repository, outside \.git\/: policies is a symbolic link to a folder outside the repository/,
    );
    expect(readdirSync(outside)).toEqual([]);
  });

  it("WHEN a bucket policy's output is .git/config THEN it is refused and .git/config is untouched", async () => {
    const dir = copyRepo("valid-full");
    execFileSync("git", ["init", "-q", dir]);
    const before = readFileSync(join(dir, ".git/config"), "utf8");
    writeFileSync(join(dir, "bucket-policies.yaml"), "bucket_policies:\n  demo-bucket:\n    output: .git/config\n");
    expectRefused(
      await everyCommand(dir),
      /bucket-policies\.yaml:3:13: bucket_policies\.demo-bucket\.output: found "\.git\/config", expected a file path inside the repository, outside \.git\/: \.git\/config is inside \.git\//,
    );
    expect(readFileSync(join(dir, ".git/config"), "utf8")).toBe(before);
  });

  it("WHEN a bucket policy's output is a UDF's code THEN validate, plan and apply exit 1 at output: and the code is untouched (apply wrote the policy document over it)", async () => {
    const dir = copyRepo("valid-full");
    const code = readFileSync(join(dir, "canvases/listings/stats.py"), "utf8");
    writeFileSync(
      join(dir, "bucket-policies.yaml"),
      "bucket_policies:\n  demo-bucket:\n    output: canvases/listings/stats.py\n",
    );
    expectRefused(
      await everyCommand(dir),
      /bucket-policies\.yaml:3:13: bucket_policies\.demo-bucket\.output: found "canvases\/listings\/stats\.py", expected a file path inside the repository, outside \.git\/: canvases\/listings\/stats\.py is where svc-iac reads the repository's declarations/,
    );
    expect(readFileSync(join(dir, "canvases/listings/stats.py"), "utf8")).toBe(code);
  });

  it("WHEN a bucket policy's output is svc.yaml, the inventory, a new UDF file or a helper module through a link THEN each is refused at output:", async () => {
    const dir = copyRepo("valid-full");
    symlinkSync("shared", join(dir, "alias"));
    const cases: [string, string][] = [
      ["svc.yaml", "svc.yaml is where svc-iac reads the repository's declarations"],
      [
        ".svc-iac/state/listings/default/inventory.json",
        ".svc-iac/state/listings/default/inventory.json is inside the state folder (.svc-iac/state/listings/default): apply would write over the inventory",
      ],
      [
        "canvases/reports/planted.py",
        "canvases/reports/planted.py is where svc-iac reads the repository's declarations",
      ],
      [
        "alias/geo.py",
        "alias/geo.py is a file this repository's declarations read (a helper module, or a link to one): apply would write over it",
      ],
    ];
    for (const [output, why] of cases) {
      writeFileSync(join(dir, "bucket-policies.yaml"), `bucket_policies:\n  demo-bucket:\n    output: ${output}\n`);
      const r = await runInProcess("validate", [dir], env());
      expect(r.code, output).toBe(1);
      expect(r.stderr).toContain(
        `bucket-policies.yaml:3:13: bucket_policies.demo-bucket.output: found ${JSON.stringify(output)}, expected a file path inside the repository, outside .git/: ${why}`,
      );
    }
  });

  it("WHEN the state folder links outside the repository THEN the commands exit 1 at state: and nothing is written there", async () => {
    const dir = copyRepo("valid-full");
    const outside = mkdtempSync(join(tmpdir(), "svc-outside-"));
    symlinkSync(outside, join(dir, ".svc-iac"));
    expectRefused(
      await everyCommand(dir),
      /svc\.yaml:7:8: state: found "\.svc-iac\/state", expected a folder inside the repository, outside \.git\/: \.svc-iac is a symbolic link to a folder outside the repository/,
    );
    expect(readdirSync(outside)).toEqual([]);
  });

  it("WHEN --out names a file in a folder of the repository that links outside THEN nothing is written there", async () => {
    const dir = copyRepo("valid-full");
    const outside = mkdtempSync(join(tmpdir(), "svc-outside-"));
    symlinkSync(outside, join(dir, "reports"));
    const r = await runInProcess("drift", [dir, "--out", join(dir, "reports/drift.md")], env());
    expect(r.code).toBe(1);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe("GIVEN paths holding a NUL byte", () => {
  it("WHEN a helper module, the state folder or a bucket policy's output names one THEN validate and plan exit 1 at that field, naming the path, with no stack trace or bare system error", async () => {
    const dir = copyRepo("valid-full");
    const edit = (file: string, from: string, to: string) =>
      writeFileSync(join(dir, file), readFileSync(join(dir, file), "utf8").replace(from, to));
    edit("canvases/listings/loader.yaml", "file: lib/utils.py", 'file: "lib/ut\\0ils.py"');
    edit("svc.yaml", "state: .svc-iac/state", 'state: ".svc-iac/st\\0ate"');
    edit("bucket-policies.yaml", "output: policies/demo-bucket.json", 'output: "policies/demo\\0.json"');
    for (const command of ["validate", "plan"] as const) {
      const r = await runInProcess(command, [dir], env());
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /canvases\/listings\/loader\.yaml:11:11: headers\[0\]\.file: found "lib\/ut\\u0000ils\.py": "canvases\/listings\/lib\/ut\\u0000ils\.py" holds a NUL byte \(\\0\), expected a path without one: refused/,
      );
      expect(r.stderr).toMatch(
        /svc\.yaml:7:8: state: found "\.svc-iac\/st\\u0000ate", expected a folder inside the repository, outside \.git\/: ".* holds a NUL byte/,
      );
      expect(r.stderr).toMatch(
        /bucket-policies\.yaml:3:13: bucket_policies\.demo-bucket\.output: found "policies\/demo\\u0000\.json", expected a file path inside the repository, outside \.git\/: "policies\/demo\\u0000\.json" holds a NUL byte/,
      );
      expect(r.stderr).not.toMatch(/without null bytes|ERR_INVALID_ARG/);
    }
    expect(platform.requests).toBe(0);
  });
});

describe("GIVEN paths no file system opens (a name of 300,000 bytes, a path of 5,000)", () => {
  it("WHEN a helper module, the state folder and a bucket policy's output name them THEN validate exits 1 at each field with a short message, never ENAMETOOLONG without a file or line", async () => {
    const dir = copyRepo("valid-full");
    const edit = (file: string, from: string, to: string) =>
      writeFileSync(join(dir, file), readFileSync(join(dir, file), "utf8").replace(from, to));
    const longName = "a".repeat(300_000);
    const longPath = Array(25).fill("b".repeat(200)).join("/");
    edit("canvases/listings/loader.yaml", "file: lib/utils.py", `file: ${longPath}.py`);
    edit("svc.yaml", "state: .svc-iac/state", `state: ${longName}`);
    edit("bucket-policies.yaml", "output: policies/demo-bucket.json", `output: policies/${longName}.json`);
    const r = await runInProcess("validate", [dir], env());
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/ENAMETOOLONG/);
    const lines = r.stderr.replaceAll(`${dir}/`, "").trim().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(
        /^bucket-policies\.yaml:3:13: bucket_policies\.demo-bucket\.output: found "policies\/a+\.\.\.", expected .* is too long: found a name of 300005 bytes, expected names of at most 255 bytes: refused$/,
      ),
      expect.stringMatching(
        /^canvases\/listings\/loader\.yaml:11:11: headers\[0\]\.file: found "b+\.\.\.": canvases\/listings\/b+\.\.\. is too long: found a path of \d+ bytes, expected at most 4095 bytes: refused$/,
      ),
      expect.stringMatching(
        /^svc\.yaml:7:8: state: found "a+\.\.\.", expected .* is too long: found a name of 300000 bytes, expected names of at most 255 bytes: refused$/,
      ),
      expect.stringMatching(/^3 errors in /),
    ]);
    for (const line of lines) expect(line.length).toBeLessThan(600);
    expect(platform.requests).toBe(0);
  });
});

describe("GIVEN special and oversized files", () => {
  it("WHEN a UDF file is a FIFO THEN validate answers at once (no hang) and refuses it by name", async () => {
    const dir = copyRepo("valid-full");
    rmSync(join(dir, "canvases/listings/stats.py"));
    execFileSync("mkfifo", [join(dir, "canvases/listings/stats.py")]);
    expectRefused(
      await everyCommand(dir),
      /canvases\/listings\/stats\.py:1:1: canvases\/listings\/stats\.py is a FIFO \(named pipe\), expected a regular file: refused/,
    );
  }, 30_000);

  it("WHEN folders stand where files are read (a UDF file, canvas.yaml, a cronjob file, secrets.yaml) THEN each is refused as a folder by name, none skipped or reported as missing", async () => {
    const dir = copyRepo("valid-full");
    mkdirSync(join(dir, "canvases/listings/planted.py"));
    rmSync(join(dir, "canvases/reports/canvas.yaml"));
    mkdirSync(join(dir, "canvases/reports/canvas.yaml"));
    mkdirSync(join(dir, "cronjobs/planted.yaml"), { recursive: true });
    rmSync(join(dir, "secrets.yaml"));
    mkdirSync(join(dir, "secrets.yaml"));
    const r = await runInProcess("validate", [dir], env());
    expect(r.code).toBe(1);
    for (const f of [
      "canvases/listings/planted.py",
      "canvases/reports/canvas.yaml",
      "cronjobs/planted.yaml",
      "secrets.yaml",
    ]) {
      expect(r.stderr).toContain(
        `${f}:1:1: found a folder named ${f.split("/").pop()}, expected a file: ${f} is read as a file; rename or remove the folder`,
      );
    }
    expect(r.stderr).not.toMatch(/not found/);
    expect(platform.requests).toBe(0);
  });

  it("WHEN a UDF file is larger than the platform's body limit THEN it is refused before it is read", async () => {
    const dir = copyRepo("valid-full");
    truncateSync(join(dir, "canvases/listings/stats.py"), 50 * 1024 * 1024);
    expectRefused(
      await everyCommand(dir),
      /canvases\/listings\/stats\.py:1:1: canvases\/listings\/stats\.py holds 52428800 bytes, more than the limit of 33554432 bytes \(32 MiB\) for a repository file: refused before reading it/,
    );
  });
});
