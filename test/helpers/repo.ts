/** Temporary copies of fixture repositories, the environment that points the commands at a test emulator, and views of the platform for assertions. */
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { createClient, type SvcClient } from "../../src/api/client";
import type { RunningEmulator } from "../../src/emulator/emulator";
import type { CommandOptions } from "../../src/reconcile/commands/command-types";
import { applyCommand } from "../../src/reconcile/commands";

/** Copies `test/fixtures/<name>` (or any folder) to a fresh temp dir and returns its path. */
export function copyRepo(name: string): string {
  const from = name.includes("/") ? resolve(name) : resolve(__dirname, "../fixtures", name);
  const to = join(mkdtempSync(join(tmpdir(), "svc-repo-")), "repo");
  cpSync(from, to, { recursive: true });
  return to;
}

/** Secret values used by the fixture repositories: distinctive, so tests can search outputs for them. */
export const FIXTURE_SECRETS = {
  MAPBOX_TOKEN: "mapbox-secret-value-7f3a9c",
  LISTINGS_PASSCODE: "passcode-secret-4b2e81",
} as const;

/** Credentials of the emulator's paid user, plus the fixture secrets. */
export function emulatorEnv(emu: RunningEmulator, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SVC_BASE_URL: emu.baseUrl,
    SVC_UDF_BASE_URL: emu.udfBaseUrl,
    SVC_TOKEN: emu.tokens.user_token,
    ...FIXTURE_SECRETS,
    ...extra,
  };
}

/** The outputs file used by {@link commandOptions}: next to the repository, outside it. */
export const outputsFileOf = (dir: string) => join(dir, "..", "outputs.json");

/** Command options for the repository `dir` against `emu`, writing new tokens to {@link outputsFileOf}. */
export function commandOptions(dir: string, emu: RunningEmulator, extra: Partial<CommandOptions> = {}): CommandOptions {
  return { dir, env: emulatorEnv(emu), outputs: outputsFileOf(dir), ...extra };
}

/** The local state folder of project `listings` (the fixtures' project), target `default` unless given. */
export const stateDirOf = (dir: string, project = "listings", target = "default") =>
  join(dir, ".svc-iac", "state", project, target);

/** Writes `count` UDF files `udf_00.py` … into `canvases/<canvas>/` of `dir`. */
export function writeUdfs(dir: string, canvas: string, count: number, prefix = "udf"): string[] {
  const slugs: string[] = [];
  for (let i = 0; i < count; i++) {
    const slug = `${prefix}_${String(i).padStart(2, "0")}`;
    writeFileSync(join(dir, "canvases", canvas, `${slug}.py`), `@fused.udf\ndef udf():\n    return ${i}\n`);
    slugs.push(slug);
  }
  return slugs;
}

/** Everything the team has on the platform, as seen by the paid user: for assertions on real state. */
export interface PlatformView {
  canvases: {
    id: string;
    name: string;
    access_scope: string;
    share_token: string | null | undefined;
    dashboard_body: string | null | undefined;
    [k: string]: unknown;
  }[];
  udfs: {
    id: string;
    slug: string;
    collection_id: string | null | undefined;
    collection_name: string | null | undefined;
    udf_body: string;
    [k: string]: unknown;
  }[];
  cronjobs: {
    id: string;
    name: string;
    udf: string;
    minute: number[];
    hour: number[];
    day_of_month: number[];
    month: number[];
    day_of_week: number[];
    enabled: boolean;
    [k: string]: unknown;
  }[];
  secrets: string[];
  serviceAccounts: { id: string; name: string; created_at: string }[];
}

export async function platformView(client: SvcClient): Promise<PlatformView> {
  const [canvases, udfs, cronjobs, secrets, serviceAccounts] = await Promise.all([
    client.canvases.listExecEnv(),
    client.udfs.listExecEnv().toArray(),
    client.cronjobs.list(),
    client.secrets.list(),
    client.environment.listServiceAccounts(),
  ]);
  return { canvases, udfs, cronjobs, secrets: [...secrets].sort(), serviceAccounts } as PlatformView;
}

/** Keys that occur more than once in `items`. */
export function duplicates<T>(items: T[], key: (t: T) => string): string[] {
  const seen = new Map<string, number>();
  for (const i of items) seen.set(key(i), (seen.get(key(i)) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
}

/** Every duplicate the reconciler must never make: canvas names, UDF slugs per canvas, cronjob names, tagged service-account names. */
export function platformDuplicates(view: PlatformView): string[] {
  return [
    ...duplicates(view.canvases, (c) => `canvas ${c.name}`),
    ...duplicates(view.udfs, (u) => `udf ${u.collection_id}/${u.slug}`),
    ...duplicates(view.cronjobs, (c) => `cronjob ${c.name}`),
    ...duplicates(view.serviceAccounts, (s) => `service account ${s.name.replace(/ \[svc-iac [0-9a-f]{6}\]$/, "")}`),
  ];
}

const ROOT = resolve(__dirname, "../..");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function distIsStale(main: string, marker: string): boolean {
  return !existsSync(main) || !existsSync(marker) || statSync(marker).mtimeMs < newestMtime(join(ROOT, "src"));
}

/** Sleeps the thread (builds are synchronous, and test files in other workers may be building too). */
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * The path of the built command (`dist/cli/main.js`), building `dist/` first when it is missing or
 * older than `src/` (for tests that run the command as a child process). One build at a time
 * across test workers (a lock folder in the temp dir). Slow when it builds: call it from a
 * `beforeAll` with a long timeout.
 */
export function builtCli(): string {
  const main = join(ROOT, "dist/cli/main.js");
  const marker = join(ROOT, "dist/reconcile/apply/index.js");
  if (!distIsStale(main, marker)) return main;
  const lock = join(tmpdir(), `svc-iac-test-build-${Buffer.from(ROOT).toString("hex").slice(-24)}`);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A build left behind by a killed worker does not block forever.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 180_000)
        rmSync(lock, { recursive: true, force: true });
      sleepSync(200);
    }
  }
  try {
    if (distIsStale(main, marker)) {
      try {
        execFileSync(process.execPath, [join(ROOT, "scripts", "build-emit.mjs")], { cwd: ROOT, stdio: "ignore" });
      } catch (e) {
        // A file being edited elsewhere may not parse: the build before it is kept when it had one.
        if (!existsSync(main)) throw e;
      }
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return main;
}

/** True when a service token signs in to the emulator (a token that was deleted or never existed does not). */
export async function serviceTokenWorks(emu: RunningEmulator, token: string): Promise<boolean> {
  const client = createClient({ baseUrl: emu.baseUrl, serviceToken: token, retry: { maxAttempts: 1 } });
  try {
    await client.environment.getSelf();
    return true;
  } catch {
    return false;
  } finally {
    await client.close();
  }
}

/** Every file of a repository folder (not `.svc-iac`), by path relative to it: for before/after comparisons. */
export function filesOf(dir: string, encoding: BufferEncoding = "utf8"): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (e === ".svc-iac") continue;
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, encoding);
    }
  };
  walk(dir);
  return out;
}

/** A copy of the `valid-full` fixture applied to `emu` (exit 0 or the test setup fails); its folder. */
export async function appliedRepo(emu: RunningEmulator): Promise<string> {
  const dir = copyRepo("valid-full");
  const r = await applyCommand(commandOptions(dir, emu));
  if (r.exitCode !== 0) throw new Error(`apply failed: ${JSON.stringify(r)}`);
  return dir;
}
