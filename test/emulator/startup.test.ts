import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "../../src/api/client";
import { startEmulator } from "../../src/emulator/emulator";
import { parseFaultSpec, FaultInjector } from "../../src/emulator/faults";

const CLI = join(__dirname, "../../dist/cli/main.js");
const NODE = process.execPath;
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "svc-emu-test-"));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Runs `svc-iac emulator` and resolves with its first stdout line, parsed, and the process. */
function runCli(args: string[]) {
  const child = spawn(NODE, [CLI, "emulator", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const ready = new Promise<Record<string, any>>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once("line", (line) => resolve(JSON.parse(line)));
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { child, ready, exited, stderr: () => stderr };
}

describe("svc-iac emulator (the command)", () => {
  it("GIVEN no options WHEN started THEN its first stdout line is the JSON ready object, logs go to stderr, and SIGTERM stops it with 0", async () => {
    const run = runCli([]);
    const info = await run.ready;
    expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(info).toMatchObject({ client_id: "rt-demo-primary" });
    for (const k of ["udf_base_url", "user_token", "service_token", "other_user_token", "basic_user_token"])
      expect(typeof info[k]).toBe("string");
    const me = await createClient({ baseUrl: info.base_url, token: info.user_token }).account.getSelf();
    expect(me.handle).toBe("dana");
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toContain("[emulator] listening on");
    expect(run.stderr()).toContain("SIGTERM: stopping");
  });

  it("GIVEN a data dir WHEN restarted THEN state and tokens survive, and credentials are stored only as hashes", async () => {
    const dataDir = tempDir();
    const first = runCli(["--data-dir", dataDir]);
    const a = await first.ready;
    const client = createClient({ baseUrl: a.base_url, token: a.user_token });
    await client.account.updateSelf({ name: "Persisted Name" });
    await client.close();
    first.child.kill("SIGINT");
    expect(await first.exited).toBe(0);

    const second = runCli(["--data-dir", dataDir]);
    const b = await second.ready;
    expect(b.user_token).toBe(a.user_token);
    expect(b.service_token).toBe(a.service_token);
    const again = createClient({ baseUrl: b.base_url, token: b.user_token });
    expect((await again.account.getSelf()).name).toBe("Persisted Name");
    await again.close();
    second.child.kill("SIGTERM");
    await second.exited;
    const db = readFileSync(join(dataDir, "emulator.sqlite"));
    for (const t of [a.user_token, a.service_token, a.other_user_token])
      expect(db.includes(Buffer.from(t))).toBe(false);
  });

  it("GIVEN a data dir an earlier version left readable by others (0755, emulator.sqlite 0644) WHEN the emulator starts and writes THEN the folder is 0700 and the database, its WAL and SHM and the master key are 0600", async () => {
    // GIVEN
    const dataDir = join(tempDir(), "local");
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, "emulator.sqlite"), "", { mode: 0o644 });
    chmodSync(join(dataDir, "emulator.sqlite"), 0o644);
    // WHEN it runs and stores a passcode
    const emu = await startEmulator({ dataDir, tickIntervalMs: 0 });
    try {
      const client = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.user_token });
      await client.account.updateSelf({ name: "Private Name" });
      await client.close();
      // THEN, while it runs (the WAL and SHM exist only then)
      const mode = (file: string) => statSync(join(dataDir, file)).mode & 0o777;
      expect(mode(".")).toBe(0o700);
      expect(
        readdirSync(dataDir)
          .filter((f) => f.startsWith("emulator.sqlite"))
          .sort(),
      ).toEqual(["emulator.sqlite", "emulator.sqlite-shm", "emulator.sqlite-wal"]);
      for (const file of ["emulator.sqlite", "emulator.sqlite-shm", "emulator.sqlite-wal", "master.key"])
        expect([file, mode(file)]).toEqual([file, 0o600]);
    } finally {
      await emu.close();
    }
  });

  it("GIVEN a fresh data dir WHEN the emulator starts THEN nothing in it is readable by others", async () => {
    const dataDir = join(tempDir(), "fresh", "local");
    const emu = await startEmulator({ dataDir, tickIntervalMs: 0 });
    try {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dataDir, "emulator.sqlite")).mode & 0o077).toBe(0);
    } finally {
      await emu.close();
    }
  });

  it("GIVEN emulator.sqlite in the data dir is a symlink WHEN the emulator starts THEN it refuses, naming the file, and the target is untouched", async () => {
    const dir = tempDir();
    const dataDir = join(dir, "local");
    mkdirSync(dataDir);
    writeFileSync(join(dir, "victim"), "keep me\n");
    symlinkSync(join(dir, "victim"), join(dataDir, "emulator.sqlite"));
    await expect(startEmulator({ dataDir, tickIntervalMs: 0 })).rejects.toThrow(
      `${join(dataDir, "emulator.sqlite")} is a symlink`,
    );
    expect(readFileSync(join(dir, "victim"), "utf8")).toBe("keep me\n");
  });

  it("GIVEN --import-max-bytes WHEN an archive above it is imported THEN 413", async () => {
    const run = runCli(["--import-max-bytes", "1024"]);
    const info = await run.ready;
    const c = createClient({ baseUrl: info.base_url, token: info.user_token, retry: { maxAttempts: 1 } });
    const canvas = await c.canvases.create({ name: "limits" });
    await expect(c.canvases.importToml(canvas.id, new Uint8Array(4096))).rejects.toMatchObject({ status: 413 });
    await c.close();
    run.child.kill("SIGTERM");
    await run.exited;
  });

  it("GIVEN a seed file WHEN started THEN its users, teams and fixed tokens are used", async () => {
    const seedFile = join(tempDir(), "seed.yaml");
    writeFileSync(
      seedFile,
      [
        "teams:",
        "  - name: acme",
        "    billing: true",
        "    instances: [{client_id: rt-acme-a, name: a, preference_rank: 1}, {client_id: rt-acme-b, name: b, preference_rank: 7}]",
        "    buckets: [s3://acme-data]",
        "    users:",
        "      - {name: Ann, handle: ann, email: ann@acme.example, token: fixed-token-ann-0001}",
        "      - {name: Bob, handle: bob, tier: basic, token: fixed-token-bob-0001}",
        "    service_accounts: [{name: deployer, token: fixed-sa-token-0001}]",
        "  - name: rival",
        "    billing: false",
        "    users: [{name: Rita, handle: rita, token: fixed-token-rita-0001}]",
      ].join("\n"),
    );
    const run = runCli(["--seed", seedFile]);
    const info = await run.ready;
    expect(info).toMatchObject({
      user_token: "fixed-token-ann-0001",
      basic_user_token: "fixed-token-bob-0001",
      other_user_token: "fixed-token-rita-0001",
      service_token: "fixed-sa-token-0001",
      client_id: "rt-acme-b",
    });
    const me = await createClient({ baseUrl: info.base_url, token: "fixed-token-ann-0001" }).account.getSelf();
    expect(me).toMatchObject({ handle: "ann", execution_environment_id: "env-acme" });
    run.child.kill("SIGTERM");
    await run.exited;
  });

  it("GIVEN a seed with no paid user WHEN started THEN the ready line's user_token is null, as the other absent tokens are", async () => {
    const seedFile = join(tempDir(), "basic-only.yaml");
    writeFileSync(
      seedFile,
      [
        "teams:",
        "  - name: solo",
        "    users: [{name: Bea, handle: bea, tier: basic, token: fixed-token-bea-0001}]",
      ].join("\n"),
    );
    const run = runCli(["--seed", seedFile]);
    const info = await run.ready;
    expect(info).toMatchObject({
      user_token: null,
      basic_user_token: "fixed-token-bea-0001",
      service_token: null,
      other_user_token: null,
    });
    run.child.kill("SIGTERM");
    await run.exited;
  });

  it("GIVEN an invalid seed file or fault spec WHEN started THEN it exits 1 naming the problem", async () => {
    const seedFile = join(tempDir(), "bad.json");
    writeFileSync(seedFile, JSON.stringify({ teams: [{ name: "x", users: [{ tier: "gold" }] }] }));
    const bad = runCli(["--seed", seedFile]);
    await expect(bad.ready).rejects.toThrow(
      `${seedFile}:1:32: teams[0].users[0].name: required key "name" is missing; expected a non-empty string`,
    );
    const badPort = runCli(["--port", "http"]);
    await expect(badPort.ready).rejects.toThrow('Invalid --port "http": expected a whole number from 0 to 65535.');
    const badLimit = runCli(["--import-max-bytes", "ten"]);
    await expect(badLimit.ready).rejects.toThrow(
      'Invalid --import-max-bytes "ten": expected a whole number of at least 1.',
    );
    const badFaults = runCli(["--faults", "503=2"]);
    await expect(badFaults.ready).rejects.toThrow('Invalid fault rate "503=2". A rate is a number from 0 to 1.');
    const badRunLimit = runCli(["--run-time-limit", "soon"]);
    await expect(badRunLimit.ready).rejects.toThrow(
      'Invalid --run-time-limit "soon": expected a number of seconds above 0 and at most 86400, e.g. 60 or 0.5.',
    );
  });

  it("GIVEN --python and --run-time-limit WHEN UDFs run THEN that interpreter runs them and a long run is stopped at the limit", async () => {
    const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
    const run = runCli(["--python", python, "--run-time-limit", "1"]);
    const info = await run.ready;
    const c = createClient({ baseUrl: info.base_url, token: info.user_token, retry: { maxAttempts: 1 } });
    const which = await c.realtime.runUdf(info.client_id, {
      stepConfig: { code: "@fused.udf\ndef udf():\n    import sys\n    return sys.executable\n" },
      format: "json",
    });
    expect(JSON.parse(which.body.toString())).toBe(python);
    const slow = { code: "@fused.udf\ndef udf():\n    import time\n    time.sleep(30)\n" };
    await expect(c.realtime.runUdf(info.client_id, { stepConfig: slow, format: "json" })).rejects.toMatchObject({
      status: 422,
      detail: "The UDF run exceeded the time limit of 1 s and was stopped",
    });
    await c.close();
    run.child.kill("SIGTERM");
    await run.exited;
    expect(run.stderr()).toContain(`UDF runs in ${python}, time limit 1 s`);
  });

  it("GIVEN --python naming no interpreter WHEN a UDF runs THEN 501 says so, and the emulator still serves everything else", async () => {
    const run = runCli(["--python", "/nonexistent/python3"]);
    const info = await run.ready;
    const c = createClient({ baseUrl: info.base_url, token: info.user_token, retry: { maxAttempts: 1 } });
    await expect(c.realtime.runUdf(info.client_id, { stepConfig: { code: "" }, format: "json" })).rejects.toMatchObject(
      {
        status: 501,
        detail: expect.stringContaining("The Python interpreter was not found"),
      },
    );
    expect((await c.account.getSelf()).handle).toBe("dana");
    await c.close();
    run.child.kill("SIGTERM");
    await run.exited;
  });
});

describe("svc-iac emulator --seed: errors of the seed file", () => {
  /** Runs the command on a seed file of these lines; resolves with its exit code and stderr once it exits. */
  async function startWithSeed(name: string, lines: string[]) {
    const dir = tempDir();
    writeFileSync(join(dir, name), lines.join("\n"));
    const child = spawn(NODE, [CLI, "emulator", "--seed", name, "--data-dir", "data"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
    return { code, stdout, stderr, dir };
  }

  it("GIVEN datasets in a bucket no team owns, or with a rows file that is not there WHEN started THEN both are listed with the rest, and no data dir is made", async () => {
    const r = await startWithSeed("seed-ds.yaml", [
      "teams:",
      "  - {name: acme, buckets: [s3://acme-data], users: [{name: Ann, token: fixed-token-ann-0001}]}",
      "datasets:",
      "  - {path: s3://zzz/ds, resolution: 8, rows: [{lat: 1, lng: 2}]}",
      "  - {path: s3://acme-data/ds2, resolution: 8, rows: missing.csv}",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")).toEqual([
      `seed-ds.yaml:4:12: datasets[0].path: found bucket "s3://zzz", expected a bucket of one of the seed's teams (s3://acme-data): add it to a team's buckets`,
      'seed-ds.yaml:5:53: datasets[1].rows: the rows file "missing.csv" does not exist or cannot be read (paths are relative to the seed file)',
      "2 errors in the seed file seed-ds.yaml; the emulator did not start.",
      "",
    ]);
    expect(existsSync(join(r.dir, "data"))).toBe(false);
  });

  it("GIVEN a seed with bad values and unknown keys WHEN started THEN every error is listed at file:line:column with its path, what was found and what was expected, and nothing starts", async () => {
    const r = await startWithSeed("seed1.yaml", [
      "teams:",
      "  - name: acme",
      '    billing: "yes"',
      "    biling: true",
      "    instances: [{name: a, preference_rank: 1.5}]",
      "    users:",
      "      - {name: Ann, tier: gold, token: short}",
      "datasets:",
      "  - {path: s3://acme-data/ds, resolution: 16, partition_by: [{column: t, period: week}]}",
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")).toEqual([
      'seed1.yaml:3:14: teams[0].billing: found "yes", expected true or false',
      'seed1.yaml:4:5: teams[0]: unknown key "biling"; expected one of name, billing, instances, buckets, users, service_accounts; did you mean billing?',
      "seed1.yaml:5:44: teams[0].instances[0].preference_rank: found 1.5, expected a whole number",
      'seed1.yaml:7:27: teams[0].users[0].tier: found "gold", expected "paid" or "basic"',
      "seed1.yaml:7:40: teams[0].users[0].token: found a string of 5 characters, expected a string of at least 8 characters",
      `seed1.yaml:9:12: datasets[0].path: found bucket "s3://acme-data", expected a bucket of one of the seed's teams (no team has buckets): add it to a team's buckets`,
      "seed1.yaml:9:43: datasets[0].resolution: found 16, expected a whole number from 0 to 15",
      'seed1.yaml:9:82: datasets[0].partition_by[0].period: found "week", expected "year", "month" or "day"',
      "8 errors in the seed file seed1.yaml; the emulator did not start.",
      "",
    ]);
    expect(r.stderr).not.toContain("short");
    expect(existsSync(join(r.dir, "data"))).toBe(false);
  });

  it("GIVEN a seed that names a team, handle, client_id, bucket or token twice WHEN started THEN each repeat is reported where it stands, pointing at the first, and no token is shown", async () => {
    const r = await startWithSeed("seed.yaml", [
      "teams:",
      "  - name: acme",
      "    instances: [{client_id: rt-1, name: a, preference_rank: 1}, {client_id: rt-1, name: b, preference_rank: 2}]",
      "    buckets: [s3://shared]",
      "    users: [{name: Ann, handle: ann, token: secret-token-0001}]",
      "  - name: acme",
      "    buckets: [s3://shared/]",
      "    users: [{name: Other Ann, handle: ann}]",
      "    service_accounts: [{name: ci, token: secret-token-0001}]",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")).toEqual([
      'seed.yaml:3:77: teams[0].instances[1].client_id: duplicate client_id "rt-1" (first at line 3); each real-time instance needs its own client_id',
      'seed.yaml:6:11: teams[1].name: duplicate team name "acme" (first at line 2); each team needs its own name (it becomes execution environment env-acme)',
      'seed.yaml:7:15: teams[1].buckets[0]: duplicate bucket "s3://shared" (first at line 4, team "acme"); a bucket belongs to one team',
      'seed.yaml:8:39: teams[1].users[0].handle: duplicate handle "ann" (first at line 5); each user needs their own handle',
      "seed.yaml:9:42: teams[1].service_accounts[0].token: the same token as teams[0].users[0].token (line 5); each user and service account needs its own token",
      "5 errors in the seed file seed.yaml; the emulator did not start.",
      "",
    ]);
    expect(r.stderr).not.toContain("secret-token");
  });

  it("GIVEN a YAML syntax error or a duplicate key WHEN started THEN it is reported at its line and column", async () => {
    const syntax = await startWithSeed("seed.yaml", ["teams:", "  - name: a", "   billing: true"]);
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toContain("seed.yaml:3:1: YAML syntax error: ");
    const twice = await startWithSeed("seed.yaml", [
      "teams:",
      "  - name: a",
      "    billing: true",
      "    billing: false",
    ]);
    expect(twice.stderr).toContain(
      'seed.yaml:4:5: teams[0]: duplicate key "billing" (first at line 3); each key may appear once',
    );
  });

  it("GIVEN --seed naming no file WHEN started THEN it says the seed file does not exist and where it looked, and exits 1", async () => {
    const dir = tempDir();
    const child = spawn(NODE, [CLI, "emulator", "--seed", "seeds/nope.yaml"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    expect(await new Promise((r) => child.once("exit", r))).toBe(1);
    expect(stderr).toBe(
      `svc-iac: the seed file seeds/nope.yaml does not exist (looked for ${join(dir, "seeds/nope.yaml")}).\n`,
    );
  });
});

describe("fault injection", () => {
  it("parses every documented option", () => {
    expect(
      parseFaultSpec(
        "seed=7,500=0.1,502=0.2,503=0.05,429=0.1,retry-after=3,reset=0.02,lost=0.1,latency=5-20,methods=post|put,paths=/udf/|/collection/,after=2,count=9",
      ),
    ).toEqual({
      seed: 7,
      error500: 0.1,
      error502: 0.2,
      error503: 0.05,
      rate429: 0.1,
      retryAfterSeconds: 3,
      reset: 0.02,
      lost: 0.1,
      latencyMs: [5, 20],
      methods: ["POST", "PUT"],
      paths: ["/udf/", "/collection/"],
      after: 2,
      count: 9,
    });
    expect(() => parseFaultSpec("boom=1")).toThrow(/Invalid fault "boom=1"/);
  });

  it("is reproducible: the same seed gives the same sequence of faults", () => {
    const seq = () => {
      const f = new FaultInjector(parseFaultSpec("seed=42,503=0.3,lost=0.2"));
      return Array.from({ length: 50 }, () => f.decide("POST", "/udf/new").kind);
    };
    const a = seq();
    expect(a).toEqual(seq());
    expect(a).toContain("status");
    expect(a).toContain("lost");
    expect(a).toContain("none");
  });

  it("honours after and count", async () => {
    const emu = await startEmulator({ faults: "503=1,after=1,count=1" });
    const c = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.user_token, retry: { maxAttempts: 1 } });
    await expect(c.account.getSelf()).resolves.toBeTruthy();
    await expect(c.account.getSelf()).rejects.toMatchObject({ status: 503 });
    await expect(c.account.getSelf()).resolves.toBeTruthy();
    await c.close();
    await emu.close();
  });
});
