/**
 * What the Python check already passed, kept between runs as linters keep theirs (ruff's
 * `.ruff_cache`, mypy's `.mypy_cache`): a plan after an apply, or a second plan of the same
 * checkout, starts no interpreter for files that have not changed. Parsing 10,000 UDF files takes
 * Python about a second; looking them up here takes milliseconds.
 *
 * Only passes are kept, never problems (a file with an error is parsed again every run, so its
 * message is always Python's own). A pass is a digest of the file's code and entrypoint, under the
 * identity of the checker: the interpreter's real executable with its size and modification time
 * (an upgraded Python parses anew) and the checker script's own digest. One file per project
 * folder, holding the passes of its last run only, so it never grows past the repository.
 *
 * The folder is `SVC_CACHE_DIR`, else `$XDG_CACHE_HOME/svc-iac`, else `~/.cache/svc-iac`; set and
 * empty (`SVC_CACHE_DIR=`), nothing is kept. The cache lives outside the repository and is only
 * ever a shortcut: an unreadable, oversized or foreign file counts as empty, and a failed write is
 * ignored (the next run parses again).
 */
import { createHash, hash, randomBytes } from "node:crypto";
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  constants,
} from "node:fs";
import path from "node:path";
import { cacheFolder } from "../../cache-folder";

/** The first line of a cache file: its format, then the checker's identity. */
const FORMAT = "svc-iac python-check 1";
/** A cache file larger than this (about 600,000 passes) is not read. */
const MAX_CACHE_BYTES = 32 * 2 ** 20;
/** Hex characters of each pass's digest (128 bits). */
const DIGEST_CHARS = 32;

/** The checker script's digest by path (the script is part of the installed package: it does not change under a running command). */
const scriptDigests = new Map<string, string>();

/** Who checks: a pass made by another interpreter or another checker script does not count. */
export function checkerIdentity(executable: string, script: string): string | undefined {
  try {
    const st = statSync(executable);
    let scriptDigest = scriptDigests.get(script);
    if (scriptDigest === undefined) {
      scriptDigest = createHash("sha256").update(readFileSync(script)).digest("hex").slice(0, DIGEST_CHARS);
      scriptDigests.set(script, scriptDigest);
    }
    return JSON.stringify([executable, st.size, Math.round(st.mtimeMs), scriptDigest]);
  } catch {
    return undefined;
  }
}

/** The digest a pass of `code` (with its entrypoint, for a UDF's main file) is kept under. */
export function passDigest(code: string, entrypoint: string | undefined): string {
  // One-shot: a third of createHash().update().digest()'s time on a UDF-sized text, the same digest.
  return hash("sha256", `${entrypoint ?? ""}\0${code}`, "hex").slice(0, DIGEST_CHARS);
}

/** The passes of one project folder, read from and written to the cache folder. */
export class PythonCheckCache {
  private constructor(
    private readonly file: string,
    /** The first line read (the format and the identity the passes were made under); "" when none was. */
    private readonly storedHeader: string,
    private readonly stored: ReadonlySet<string>,
  ) {}

  /**
   * The cache of the project at `root`, read now (before the interpreter is known: its passes are
   * used once {@link passesFor} the identity they were made under); undefined when caching is off.
   */
  static open(env: Record<string, string | undefined>, root: string): PythonCheckCache | undefined {
    const folder = cacheFolder(env);
    if (!folder) return undefined;
    const file = path.join(
      folder,
      "python-check",
      `${createHash("sha256").update(path.resolve(root)).digest("hex").slice(0, 24)}.txt`,
    );
    const { header, passes } = readPasses(file);
    return new PythonCheckCache(file, header, passes);
  }

  /** The identity the passes read were made under; undefined when none were read. */
  get storedIdentity(): string | undefined {
    return this.storedHeader.startsWith(`${FORMAT} `) ? this.storedHeader.slice(FORMAT.length + 1) : undefined;
  }

  /** The passes read when they were made under `identity`; none otherwise (another interpreter or checker). */
  passesFor(identity: string): ReadonlySet<string> {
    return this.storedHeader === `${FORMAT} ${identity}` ? this.stored : EMPTY;
  }

  /**
   * The passes read when the interpreter they were made with is still on disk unchanged and the
   * checker script is the same: what the check may count on before the interpreter `python` names
   * is known (confirmed by {@link passesFor} once it is). Nothing named in the file is ever run.
   */
  passesIfUnchanged(script: string): ReadonlySet<string> {
    const identity = this.storedIdentity;
    if (identity === undefined) return EMPTY;
    let executable: unknown;
    try {
      executable = (JSON.parse(identity) as unknown[])[0];
    } catch {
      return EMPTY;
    }
    return typeof executable === "string" && checkerIdentity(executable, script) === identity ? this.stored : EMPTY;
  }

  /** Keeps exactly `passes` (this run's) under `identity` unless they are what was read; best effort. */
  save(identity: string, passes: ReadonlySet<string>): void {
    const header = `${FORMAT} ${identity}`;
    if (
      header === this.storedHeader &&
      passes.size === this.stored.size &&
      [...passes].every((p) => this.stored.has(p))
    )
      return;
    try {
      mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const temp = `${this.file}.${randomBytes(6).toString("hex")}.tmp`;
      try {
        writeFileSync(temp, `${header}\n${[...passes].sort().join("\n")}\n`, { flag: "wx", mode: 0o600 });
        renameSync(temp, this.file);
      } finally {
        rmSync(temp, { force: true });
      }
    } catch {
      // A cache that cannot be written only costs the next run its parse.
    }
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/** The first line of `file` and the well-formed passes after it; nothing when it cannot be read. */
function readPasses(file: string): { header: string; passes: Set<string> } {
  const none = { header: "", passes: new Set<string>() };
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return none;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_CACHE_BYTES) return none;
    const buf = Buffer.allocUnsafe(st.size);
    let total = 0;
    while (total < buf.length) {
      const n = readSync(fd, buf, total, buf.length - total, null);
      if (n === 0) break;
      total += n;
    }
    const lines = buf.subarray(0, total).toString("utf8").split("\n");
    if (!lines[0]?.startsWith(`${FORMAT} `)) return none;
    const wellFormed = new RegExp(`^[0-9a-f]{${DIGEST_CHARS}}$`);
    return { header: lines[0], passes: new Set(lines.slice(1).filter((l) => wellFormed.test(l))) };
  } catch {
    return none;
  } finally {
    closeSync(fd);
  }
}
