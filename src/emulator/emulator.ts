/**
 * `startEmulator`: a faithful local platform on 127.0.0.1 for tests, examples and the embedded
 * default of the command.
 */
import { chmodSync, closeSync, constants, fchmodSync, mkdirSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AREAS } from "./areas/index";
import { CATALOG_DDL } from "./catalog";
import { systemClock, type Clock } from "./clock";
import { CORE_DDL } from "./core-schema";
import { datasetAt } from "./datasets/dataset-catalog";
import { indexDataset, type IndexResult } from "./datasets/dataset-indexer";
import type { DatasetSpecInput } from "./datasets/dataset-spec";
import { FaultInjector, type FaultSpec } from "./faults";
import { checkRunTimeLimit, createRealtimeRuntime } from "./realtime/runtime";
import { migrateRunCache } from "./realtime/run-cache";
import { Keys } from "./keys";
import type { EmulatorEnv } from "./route";
import { DEFAULT_SEED, applySeed, type SeedSpec, type SeedTokens } from "./seed";
import { loadSeedFile } from "./seed-file";
import { createRouter, listen } from "./server";
import { DATABASE_FILE, Store } from "./store";
import { SvcError } from "../errors";

export interface EmulatorOptions {
  /** @default "127.0.0.1" */
  host?: string;
  /** @default 0 (any free port) */
  port?: number;
  /** Keeps state, keys and stored objects across restarts; in memory when absent. */
  dataDir?: string;
  /**
   * A seed object, or the path of a YAML/JSON seed file. A bad file rejects with a `SeedFileError`
   * listing every problem at its `file:line:column`. @default the built-in seed
   */
  seed?: SeedSpec | string;
  /** Fault injection spec (see `faults.ts` and docs/emulator.md). Off by default. */
  faults?: string | FaultSpec;
  /** Time source; a `ManualClock` lets tests move time. @default the system clock */
  clock?: Clock;
  /** Largest canvas import archive in bytes. @default 10485760 */
  importMaxBytes?: number;
  /** How often periodic work (scheduler, job progress) runs with the system clock; 0 disables. @default 1000 */
  tickIntervalMs?: number;
  /** Log sink. @default nothing */
  log?: (line: string) => void;
  /**
   * Python interpreter (command or path) that runs UDFs. It is started on the first run only;
   * when it is missing, runs answer 501 and everything else works. @default "python3"
   */
  python?: string;
  /** Run time limit of a UDF run in milliseconds; the process is killed when it passes. @default 60000 */
  runTimeLimitMs?: number;
}

export interface RunningEmulator {
  /** `{base_url}`, ending in `/v1`. */
  baseUrl: string;
  /** `{udf_base_url}`. */
  udfBaseUrl: string;
  origin: string;
  tokens: SeedTokens;
  /** The first team's highest-ranked real-time instance. */
  clientId: string | undefined;
  /** Internal state, for tests that must look behind the API. */
  env: EmulatorEnv;
  /** Replaces (or, with undefined, removes) the fault injector at run time. */
  setFaults(spec: string | FaultSpec | undefined): void;
  readonly faults: FaultInjector | undefined;
  /** Runs periodic work now (after moving a manual clock). */
  tick(): void;
  /**
   * Indexes rows into an H3-indexed Parquet dataset for `GET /h3/query` (replacing an earlier
   * index of the same folder, whose cursors then get 409). A `rows` file is resolved against the
   * working directory. Rejects with an Error naming the bad field, or the file and line of a bad row.
   */
  indexDataset(spec: DatasetSpecInput): Promise<IndexResult>;
  close(): Promise<void>;
}

/**
 * The data dir holds passcodes, share tokens and the master key: the folder is made 0700 and the
 * database 0600 before SQLite opens it (SQLite gives its WAL and SHM files the database's mode),
 * also when an earlier version left them readable by others.
 */
function privateDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  for (const name of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, "master.key"]) {
    // Never through a symlink: the data dir may sit inside a repository a pull request wrote.
    const create = name === DATABASE_FILE ? constants.O_CREAT : 0;
    let fd: number;
    try {
      fd = openSync(join(dataDir, name), constants.O_RDONLY | constants.O_NOFOLLOW | create, 0o600);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") continue;
      if (code === "ELOOP")
        throw new SvcError(
          "data_dir_refused",
          `${join(dataDir, name)} is a symlink; the emulator keeps its data only in regular files of its data dir.`,
        );
      throw e;
    }
    try {
      fchmodSync(fd, 0o600);
    } finally {
      closeSync(fd);
    }
  }
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  checkRunTimeLimit(options.runTimeLimitMs);
  // A bad seed file stops the start before the data dir is created or touched.
  const seed = typeof options.seed === "string" ? loadSeedFile(options.seed) : (options.seed ?? DEFAULT_SEED);
  if (options.dataDir) privateDataDir(options.dataDir);
  const keys = Keys.forDataDir(options.dataDir);
  const store = new Store(options.dataDir);
  store.migrate(CORE_DDL);
  store.migrate(CATALOG_DDL);
  migrateRunCache(store);
  for (const area of AREAS) if (area.ddl) store.migrate(area.ddl);

  const tempRoot = options.dataDir ? undefined : mkdtempSync(join(tmpdir(), "svc-emulator-"));
  const objectsDir = join(options.dataDir ?? tempRoot!, "objects");
  mkdirSync(objectsDir, { recursive: true });

  const clock = options.clock ?? systemClock;
  const env: EmulatorEnv = {
    store,
    clock,
    keys,
    objectsDir,
    origin: "",
    importMaxBytes: options.importMaxBytes ?? 10 * 1024 * 1024,
    log: options.log ?? (() => {}),
    realtime: createRealtimeRuntime({
      python: options.python,
      timeLimitMs: options.runTimeLimitMs,
      runsDir: join(options.dataDir ?? tempRoot!, "runs"),
    }),
  };
  const tokens = applySeed(store, keys, seed, clock.now());
  (seed.datasets ?? []).forEach((d, i) => {
    if (datasetAt(store, d.path)) return; // kept in the data dir from an earlier start
    try {
      indexDataset(env, d);
    } catch (e) {
      store.close();
      if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
      throw new SvcError("dataset_invalid", `seed datasets[${i}] (${d.path}): ${(e as Error).message}`);
    }
  });

  let faults = FaultInjector.from(options.faults);
  const router = createRouter(AREAS.flatMap((a) => a.routes));
  const server = await listen(env, router, {
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
    faults: () => faults,
  });
  env.origin = server.origin;

  const tick = () => {
    for (const area of AREAS) if (area.tick) store.tx(() => area.tick!(env));
  };
  const interval = options.tickIntervalMs ?? 1000;
  const timer =
    interval > 0 && !options.clock
      ? setInterval(() => {
          try {
            tick();
          } catch (e) {
            env.log(`periodic work failed: ${(e as Error).message}`);
          }
        }, interval)
      : undefined;
  timer?.unref();

  let closed = false;
  return {
    baseUrl: `${server.origin}/v1`,
    udfBaseUrl: `${server.origin}/udf`,
    origin: server.origin,
    tokens,
    clientId: tokens.client_id,
    env,
    setFaults(spec) {
      faults = FaultInjector.from(spec);
    },
    get faults() {
      return faults;
    },
    tick,
    indexDataset: async (spec) => indexDataset(env, spec),
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      env.realtime.close();
      await server.close();
      store.close();
      if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
    },
  };
}
