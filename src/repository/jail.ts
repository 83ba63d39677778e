/**
 * The repository is a jail. Every file svc-iac reads from a repository, and every file it writes
 * into one, resolves (symbolic links followed) inside the repository root: the git work tree that
 * holds `svc.yaml` (the nearest folder above it holding `.git`), or `svc.yaml`'s own folder when
 * there is no git. A link whose target stays inside is followed; one that leaves, and any special
 * file (FIFO, device, socket, `/proc`), is refused by name without a byte of its target read.
 * Nothing is read from or written under a `.git` folder (it holds the checkout's credentials).
 *
 * A file is opened once and checked through the opened descriptor, so nothing can swap it between
 * the check and the read: `open(O_NONBLOCK | O_NOFOLLOW)` (a FIFO cannot hang the open; a link at
 * the name is not followed), `fstat` (a regular file), then a read bounded in size from that
 * descriptor. The file's real path is its folder's real path (resolved once per folder and run,
 * then kept) and its name: one open, one fstat, one read and one close a file. A name that is a
 * link is opened again following it, and its real path is the descriptor's own (`/proc/self/fd/N`,
 * or `realpath` compared by device and inode where there is no `/proc`). The repository is a
 * checkout that nothing changes while a command runs: the untrusted part is its content, which
 * cannot race the reads.
 * Writes go through a folder whose every part was checked the same way, into a temporary file and
 * a rename, which replaces a link at the final name instead of writing through it.
 *
 * Synchronous behind the loader's async callers: a repository is thousands of small files, each
 * read in a few system calls, with nothing to overlap them with.
 */
import { SvcError } from "../errors";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  chmodSync,
  type Stats,
} from "node:fs";
import path from "node:path";
import { firstInvalidUtf8 } from "./utf8-text";

/**
 * The most a repository file may hold: the platform's request body limit (the emulator's JSON
 * limit, 32 MiB). No file of a repository reaches the platform in a larger body, so a bigger one is
 * refused before it is read whole.
 */
export const MAX_REPOSITORY_FILE_BYTES = 32 * 1024 * 1024;

/** What reading one repository file gave. `refused` carries the position of a bad byte when there is one. */
export type JailRead =
  | { kind: "text"; text: string }
  /** Nothing to read: no such file, or (`folder`) a folder stands there. */
  | { kind: "missing"; folder?: true }
  | { kind: "refused"; message: string; line?: number; column?: number };

export interface JailEntry {
  name: string;
  /** A folder, or a symbolic link to a folder inside the repository. */
  isFolder: boolean;
}

export type JailListing = { kind: "entries"; entries: JailEntry[] } | { kind: "refused"; message: string };

/** A path the jail refuses to write or read; `file` as the user wrote it (relative to the project folder). */
export class JailError extends SvcError {
  declare readonly file: string;
  constructor(file: string, message: string) {
    super("repository_jail", message, { file });
    this.name = "JailError";
  }
}

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
/** A file's first open: a link at its name fails with ELOOP instead of being followed. */
const READ_NOFOLLOW_FLAGS = READ_FLAGS | (constants.O_NOFOLLOW ?? 0);
const FOLDER_FLAGS = READ_FLAGS | (constants.O_DIRECTORY ?? 0);
const PROC_FD = "/proc/self/fd";
let procFdWorks: boolean | undefined;

/** The nearest folder at or above `dir` holding `.git` (a folder, or a worktree's file); undefined when none. */
function gitWorkTree(dir: string): string | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    try {
      lstatSync(path.join(at, ".git"));
      return at;
    } catch {
      // not here
    }
    if (path.dirname(at) === at) return undefined;
  }
}

const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException)?.code;

/** `a FIFO`, `a socket`, `a character device`, … for a message. */
function specialKind(st: Stats): string {
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  return "not a regular file";
}

/** The repository a project folder belongs to, and the checked reads and writes inside it. */
export class RepositoryJail {
  /**
   * @param root The repository root as found (lexically; where `--out` paths are compared).
   * @param realRoot Its real path (symbolic links resolved): what every opened file must be under.
   * @param base The project folder (svc.yaml's), lexically: relative paths start here.
   */
  private constructor(
    readonly root: string,
    readonly realRoot: string,
    readonly base: string,
  ) {
    this.baseIsPlain =
      path.sep === "/" &&
      !path
        .relative(root, base)
        .split(path.sep)
        .some((s) => s === ".." || s === ".git");
  }

  /** The project folder lies inside the root, outside `.git` (true but for odd set-ups): see {@link plainlyInside}. */
  private readonly baseIsPlain: boolean;

  /** The real path of every file read so far: a path the repository asks to write must not be one (see {@link wasRead}). */
  private readonly readReal = new Set<string>();

  /**
   * True when `file` is plainly inside the repository and outside `.git`, with no path arithmetic:
   * a relative path whose every part is a name (not empty, `.`, `..` or `.git`) under a project
   * folder that is itself inside. Reading 100,000 files spent a fifth of its time resolving paths.
   * Anything else goes through {@link lexicalRefusal}'s full checks.
   */
  private plainlyInside(file: string): boolean {
    if (!this.baseIsPlain || file === "" || file.charCodeAt(0) === 47 /* "/" */) return false;
    for (let from = 0; ; ) {
      const to = file.indexOf("/", from);
      const part = to < 0 ? file.slice(from) : file.slice(from, to);
      if (part === "" || part === "." || part === ".." || part === ".git") return false;
      if (to < 0) return true;
      from = to + 1;
    }
  }

  /**
   * The jail of the project at `dir`: its git work tree, else `dir` itself.
   * @example
   * const jail = RepositoryJail.forProject("examples/repo");
   * const svc = jail.readText("svc.yaml");
   */
  static forProject(dir: string): RepositoryJail {
    const base = path.resolve(dir);
    let realBase = base;
    try {
      realBase = realpathSync(base);
    } catch {
      // A missing folder: reads find nothing, which the caller reports.
    }
    const tree = gitWorkTree(realBase);
    if (!tree) return new RepositoryJail(base, realBase, base);
    // The lexical root: as many levels above `base` as the real tree is above the real base.
    const up = path.relative(tree, realBase);
    const levels = up ? up.split(path.sep).length : 0;
    let root = base;
    for (let i = 0; i < levels; i++) root = path.dirname(root);
    return new RepositoryJail(root, tree, base);
  }

  /** `file` as messages show it: relative to the project folder, `/` separators. */
  shown(file: string): string {
    const rel = path.relative(this.base, path.resolve(this.base, file));
    return (rel || ".").split(path.sep).join("/");
  }

  /** True when the real path `real` is inside the repository and outside every `.git` folder. */
  private allowedReal(real: string): boolean {
    // The common case without path arithmetic: under the root, no `.git` part below it.
    const prefix = this.realRoot.endsWith(path.sep) ? this.realRoot : this.realRoot + path.sep;
    if (path.sep === "/" && real.startsWith(prefix)) return !real.slice(prefix.length).split("/").includes(".git");
    if (
      real !== this.realRoot &&
      !real.startsWith(this.realRoot.endsWith(path.sep) ? this.realRoot : this.realRoot + path.sep)
    )
      return false;
    return !path.relative(this.realRoot, real).split(path.sep).includes(".git");
  }

  /** True when `abs` is lexically inside the repository (before links are followed). */
  isInside(abs: string): boolean {
    const a = path.resolve(this.base, abs);
    for (const r of [this.root, this.realRoot]) {
      const rel = path.relative(r, a);
      if (rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))) return true;
    }
    return false;
  }

  /** Why `file` (lexically) may not be used, or undefined: a NUL byte in it, outside the repository, or under `.git`. */
  private lexicalRefusal(file: string): string | undefined {
    // No file system call takes a NUL byte: say so here, at the field, rather than fail in `open`.
    if (file.includes("\0"))
      return `${JSON.stringify(this.shown(file))} holds a NUL byte (\\0), expected a path without one: refused`;
    if (file.length > MAX_NAME_BYTES / 4) {
      const tooLong = tooLongPath(path.resolve(this.base, file));
      if (tooLong) return `${shortened(this.shown(file))} is too long: ${tooLong}: refused`;
    }
    if (this.plainlyInside(file)) return undefined;
    const abs = path.resolve(this.base, file);
    const shown = this.shown(file);
    // The root is not named: a message is the same wherever the repository is checked out.
    if (!this.isInside(abs)) return `${shown} is outside the repository: refused`;
    const rel = path.relative(this.isInsideOf(abs), abs);
    if (rel.split(path.sep).includes(".git"))
      return `${shown} is inside .git/, which svc-iac never reads or writes: refused`;
    return undefined;
  }

  private isInsideOf(abs: string): string {
    const rel = path.relative(this.root, abs);
    return !rel.startsWith("..") && !path.isAbsolute(rel) ? this.root : this.realRoot;
  }

  /** Why the real path `real` reached through `file` is refused: names `file`, never what it leads to. */
  private realRefusal(file: string, real: string | undefined, what: "file" | "folder"): string {
    const shown = this.shown(file);
    const inRoot =
      real !== undefined &&
      !path.relative(this.realRoot, real).startsWith("..") &&
      !path.isAbsolute(path.relative(this.realRoot, real));
    if (inRoot && path.relative(this.realRoot, real).split(path.sep).includes(".git")) {
      return `${shown} leads into .git/, which svc-iac never reads or writes: refused`;
    }
    if (!real) return `${shown} changed while it was opened: refused, run again`;
    const link = lstatSafe(path.resolve(this.base, file))?.isSymbolicLink();
    const how = link
      ? `is a symbolic link to a ${what} outside the repository`
      : `lies in a folder that is a symbolic link to outside the repository`;
    return `${shown} ${how}: refused, nothing of it is read; links in a repository must stay inside it (${this.realRoot})`;
  }

  /** The real path of an open descriptor; undefined when it cannot be told for sure. */
  private realPathOfFd(fd: number, abs: string, st: Stats): string | undefined {
    if (procFdWorks !== false) {
      try {
        const real = readlinkSync(`${PROC_FD}/${fd}`);
        procFdWorks = true;
        return real;
      } catch {
        procFdWorks = false;
      }
    }
    // No /proc: the path's real path, if it is still the very file that was opened.
    try {
      const real = realpathSync(abs);
      const now = statSync(real);
      return now.dev === st.dev && now.ino === st.ino ? real : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Reads `file` (relative to the project folder) as UTF-8 text, at most `maxBytes`.
   * A folder (`folder: true`) or a missing file is `missing`; a link leaving the repository or leading nowhere, a special file, an
   * oversized file or bytes that are not UTF-8 are `refused` with a message naming `file`.
   */
  readText(file: string, opts: { maxBytes?: number } = {}): JailRead {
    const bytes = this.readBytes(file, opts);
    if (bytes.kind !== "bytes") return bytes;
    const bad = firstInvalidUtf8(bytes.data);
    if (bad) {
      return {
        kind: "refused",
        message: `${this.shown(file)} is not UTF-8 text: byte 0x${bad.byte.toString(16).padStart(2, "0")} at line ${bad.line}, column ${bad.column} is not valid UTF-8; save the file as UTF-8`,
        line: bad.line,
        column: bad.column,
      };
    }
    return { kind: "text", text: bytes.data.toString("utf8") };
  }

  /** Reads `file`'s bytes with the checks of {@link readText} but no decoding. */
  readBytes(
    file: string,
    opts: { maxBytes?: number } = {},
  ): { kind: "bytes"; data: Buffer } | Exclude<JailRead, { kind: "text" }> {
    const max = opts.maxBytes ?? MAX_REPOSITORY_FILE_BYTES;
    // A plain relative path (the loader's every read): no path arithmetic, the folder's checks kept.
    const plain = this.plainlyInside(file) && !file.includes("\0") && file.length <= MAX_NAME_BYTES / 4;
    if (!plain) {
      const lexical = this.lexicalRefusal(file);
      if (lexical) return { kind: "refused", message: lexical };
    }
    const abs = plain && this.base !== "/" ? `${this.base}/${file}` : path.resolve(this.base, file);
    let fd: number;
    // Not a link at the name (the common case): the folder's real path, resolved and checked once, and the name.
    let real: string | undefined;
    let allowed = false;
    try {
      fd = openSync(abs, READ_NOFOLLOW_FLAGS);
      const folder = this.realFolderOf(abs);
      if (folder.real !== undefined) {
        const name = abs.slice(abs.lastIndexOf("/") + 1);
        real = `${folder.real}/${name}`;
        allowed = folder.allowed && name !== ".git";
      }
    } catch (e) {
      if (errnoOf(e) !== "ELOOP") return this.openFailure(file, abs, e);
      // A link at the name (or a loop): opened following it, its real path told by the descriptor.
      try {
        fd = openSync(abs, READ_FLAGS);
      } catch (e2) {
        return this.openFailure(file, abs, e2);
      }
    }
    try {
      const st = fstatSync(fd);
      if (!allowed) {
        real ??= this.realPathOfFd(fd, abs, st);
        if (!real || !this.allowedReal(real))
          return { kind: "refused", message: this.realRefusal(file, real, st.isDirectory() ? "folder" : "file") };
      }
      if (st.isDirectory()) return { kind: "missing", folder: true };
      if (!st.isFile())
        return {
          kind: "refused",
          message: `${this.shown(file)} is ${specialKind(st)}, expected a regular file: refused, nothing of it is read`,
        };
      if (st.size > max) return { kind: "refused", message: tooBig(this.shown(file), st.size, max) };
      const data = readBounded(fd, max, st.size, true);
      if (!data) return { kind: "refused", message: tooBig(this.shown(file), undefined, max) };
      this.readReal.add(real as string);
      return { kind: "bytes", data };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The real path of each folder files were read from, by its absolute (lexical) path, and whether
   * it is inside the repository and outside `.git`: resolved and checked once per folder, not per file.
   */
  private readonly realFolders = new Map<string, { real: string | undefined; allowed: boolean }>();

  /** The real path of the folder holding `abs` (a path that is not a link itself), kept. */
  private realFolderOf(abs: string): { real: string | undefined; allowed: boolean } {
    const folder = abs.slice(0, Math.max(abs.lastIndexOf(path.sep), 1));
    let known = this.realFolders.get(folder);
    if (!known) {
      let real: string | undefined;
      try {
        real = realpathSync(folder);
      } catch {
        real = undefined;
      }
      known = { real: real === "/" ? "" : real, allowed: real !== undefined && this.allowedReal(real) };
      this.realFolders.set(folder, known);
    }
    return known;
  }

  /** What a failed open of `file` means: missing, or refused naming why. */
  private openFailure(
    file: string,
    abs: string,
    e: unknown,
  ): { kind: "missing" } | { kind: "refused"; message: string } {
    const code = errnoOf(e);
    if (code === "ENOENT" && lstatSafe(abs)?.isSymbolicLink()) {
      // Not absent: a link planted where a file is expected (a UDF's code) would otherwise make its object vanish from the plan.
      return {
        kind: "refused",
        message: `${this.shown(file)} is a symbolic link to nothing (its target does not exist), expected a file: refused`,
      };
    }
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    if (code === "ELOOP")
      return { kind: "refused", message: `${this.shown(file)} is a loop of symbolic links: refused` };
    if (code === "ENXIO" || code === "EOPNOTSUPP")
      return {
        kind: "refused",
        message: `${this.shown(file)} is a socket or device, expected a regular file: refused`,
      };
    throw e;
  }

  /** True when `file` is a readable regular file inside the repository (links followed inside only). */
  isFile(file: string): boolean {
    const r = this.readBytes(file, { maxBytes: 0 });
    return r.kind === "bytes" || (r.kind === "refused" && /more than/.test(r.message));
  }

  /**
   * The visible entries (names not starting with ".") of `folder`, sorted by name; `[]` when it
   * does not exist. A link counts as what it leads to, so that reading or listing it (which checks
   * where it leads) refuses it by name when it leaves the repository.
   */
  listFolder(folder: string): JailListing {
    const lexical = this.lexicalRefusal(folder);
    if (lexical) return { kind: "refused", message: lexical };
    const abs = path.resolve(this.base, folder);
    let fd: number;
    try {
      fd = openSync(abs, FOLDER_FLAGS);
    } catch (e) {
      const code = errnoOf(e);
      if (code === "ENOENT" || code === "ENOTDIR") return { kind: "entries", entries: [] };
      if (code === "ELOOP")
        return { kind: "refused", message: `${this.shown(folder)} is a loop of symbolic links: refused` };
      throw e;
    }
    try {
      const st = fstatSync(fd);
      const real = this.realPathOfFd(fd, abs, st);
      if (!real || !this.allowedReal(real))
        return { kind: "refused", message: this.realRefusal(folder, real, "folder") };
      // The opened folder itself where /proc allows it, so the listing is of what was checked.
      const listed = procFdWorks
        ? readdirSync(`${PROC_FD}/${fd}`, { withFileTypes: true })
        : readdirSync(real, { withFileTypes: true });
      const entries = listed
        .filter((e) => !e.name.startsWith("."))
        .map((e) => ({
          name: e.name,
          isFolder: e.isDirectory() || (e.isSymbolicLink() && linkIsFolder(path.join(real, e.name))),
        }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return { kind: "entries", entries };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The real path of `folder` (relative to the project folder), checked part by part: each that
   * exists is a folder (or a link to one) inside the repository and not `.git`; with `create`, the
   * missing ones are made. Throws {@link JailError} naming the first part that leaves.
   */
  folder(folder: string, opts: { create: boolean }): string {
    const lexical = this.lexicalRefusal(folder);
    if (lexical) throw new JailError(this.shown(folder), lexical);
    const abs = path.resolve(this.base, folder);
    const from = this.isInsideOf(abs);
    const parts = path.relative(from, abs).split(path.sep).filter(Boolean);
    let real = this.realRoot;
    let lexicalAt = from;
    for (const part of parts) {
      lexicalAt = path.join(lexicalAt, part);
      const next = path.join(real, part);
      let st: Stats | undefined;
      try {
        st = lstatSync(next);
      } catch (e) {
        if (errnoOf(e) !== "ENOENT") throw e;
      }
      if (!st) {
        if (!opts.create) return path.join(real, ...parts.slice(parts.indexOf(part)));
        mkdirSync(next);
        real = next;
        continue;
      }
      let resolved = next;
      if (st.isSymbolicLink()) {
        try {
          resolved = realpathSync(next);
        } catch {
          throw new JailError(
            this.shown(lexicalAt),
            `${this.shown(lexicalAt)} is a symbolic link that leads nowhere: refused`,
          );
        }
        if (!this.allowedReal(resolved))
          throw new JailError(this.shown(lexicalAt), this.realRefusal(lexicalAt, resolved, "folder"));
        st = statSync(resolved);
      }
      if (!st.isDirectory())
        throw new JailError(
          this.shown(lexicalAt),
          `${this.shown(lexicalAt)} is not a folder, expected a folder to write into`,
        );
      real = resolved;
    }
    return real;
  }

  /** True when `file` (relative to the project folder) is, links followed, a file this jail has read. */
  wasRead(file: string): boolean {
    try {
      const at = path.join(
        this.folder(path.dirname(path.resolve(this.base, file)), { create: false }),
        path.basename(file),
      );
      let real = at;
      try {
        real = realpathSync(at);
      } catch {
        // Not there yet: compared as it would be written.
      }
      return this.readReal.has(real);
    } catch (e) {
      if (e instanceof JailError) return false;
      throw e;
    }
  }

  /** Why `file` cannot be written, or undefined (checks the folders that exist; creates nothing). */
  writeRefusal(file: string): string | undefined {
    const lexical = this.lexicalRefusal(file);
    if (lexical) return lexical;
    try {
      const dir = this.folder(path.dirname(path.resolve(this.base, file)), { create: false });
      const at = path.join(dir, path.basename(file));
      const st = lstatSafe(at);
      if (st?.isDirectory()) return `${this.shown(file)} is a folder, expected a file to write`;
      if (st?.isSymbolicLink()) {
        let real: string | undefined;
        try {
          real = realpathSync(at);
        } catch {
          // a link to nothing
        }
        if (!real || !this.allowedReal(real)) return this.realRefusal(file, real ?? at, "file");
      }
      return undefined;
    } catch (e) {
      if (e instanceof JailError) return e.message;
      throw e;
    }
  }

  /**
   * Writes `text` to `file` inside the repository: its folder checked and created (see
   * {@link folder}), a temporary file beside it (created with `mode`, never readable by others
   * meanwhile), then a rename, which replaces a link at the final name rather than following it.
   * @throws JailError when the path leaves the repository or is under `.git`.
   */
  writeText(file: string, text: string, opts: { mode?: number } = {}): void {
    const lexical = this.lexicalRefusal(file);
    if (lexical) throw new JailError(this.shown(file), lexical);
    const dir = this.folder(path.dirname(path.resolve(this.base, file)), { create: true });
    writeAtomic(path.join(dir, path.basename(file)), text, opts.mode);
  }

  /**
   * Writes a file the operator named on the command line (`--out`, `--outputs`, a saved plan):
   * anywhere the operator chose, but when the path is inside the repository, only through it
   * ({@link writeText}), so a link the repository holds cannot redirect it or reach `.git`.
   */
  writeOperatorFile(file: string, text: string, opts: { mode?: number } = {}): void {
    const abs = path.resolve(file);
    if (this.isInside(abs)) return this.writeText(abs, text, opts);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeAtomic(abs, text, opts.mode);
  }

  /** Reads a file the operator named (see {@link writeOperatorFile}): inside the repository through it; elsewhere still no special file, `.git` or unbounded read. */
  readOperatorFile(file: string, opts: { maxBytes?: number } = {}): JailRead {
    const abs = path.resolve(file);
    if (this.isInside(abs)) return this.readText(abs, opts);
    const top = path.parse(abs).root;
    return new RepositoryJail(top, top, path.dirname(abs)).readText(abs, opts);
  }
}

/** The longest name a file system takes (Linux, macOS, Windows), and the longest path Linux opens, in bytes. */
const MAX_NAME_BYTES = 255;
const MAX_PATH_BYTES = 4095;

/** Why no file system opens `abs` (ENAMETOOLONG), or undefined: checked before the call, so the refusal names the field. */
function tooLongPath(abs: string): string | undefined {
  const long = abs.split(path.sep).find((part) => Buffer.byteLength(part) > MAX_NAME_BYTES);
  if (long !== undefined)
    return `found a name of ${Buffer.byteLength(long)} bytes, expected names of at most ${MAX_NAME_BYTES} bytes`;
  const bytes = Buffer.byteLength(abs);
  return bytes > MAX_PATH_BYTES
    ? `found a path of ${bytes} bytes, expected at most ${MAX_PATH_BYTES} bytes`
    : undefined;
}

/** A path for a message: its first 60 characters when longer. */
function shortened(shown: string): string {
  return shown.length > 64 ? `${shown.slice(0, 60)}...` : shown;
}

function linkIsFolder(abs: string): boolean {
  try {
    return statSync(abs).isDirectory();
  } catch {
    return false;
  }
}

function lstatSafe(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

function tooBig(shown: string, size: number | undefined, max: number): string {
  const found = size === undefined ? `more than ${max} bytes` : `${size} bytes`;
  return `${shown} holds ${found}, more than the limit of ${max} bytes (${Math.round(max / 1024 / 1024)} MiB) for a repository file: refused before reading it`;
}

/**
 * At most `max` bytes from `fd`, read in one call for a file `fstat` sized right (`hint`); undefined
 * when there are more (a file growing, or one whose size `fstat` does not tell). A read of a
 * regular file that returns less than asked has met the end of the file: no second call then.
 */
function readBounded(fd: number, max: number, hint: number, regular = false): Buffer | undefined {
  // One byte more than expected, so the end is seen by the same read.
  let buf = Buffer.allocUnsafe(Math.min(hint, max) + 1);
  let total = 0;
  for (;;) {
    if (total === buf.length) {
      if (total > max) return undefined;
      const bigger = Buffer.allocUnsafe(Math.min(Math.max(buf.length * 2, 64 * 1024), max + 1));
      buf.copy(bigger, 0, 0, total);
      buf = bigger;
    }
    let n: number;
    try {
      n = readSync(fd, buf, total, buf.length - total, null);
    } catch (e) {
      if (errnoOf(e) === "EAGAIN") break;
      throw e;
    }
    if (n === 0) break;
    const asked = buf.length - total;
    total += n;
    if (total > max) return undefined;
    if (regular && n < asked) break;
  }
  return buf.subarray(0, total);
}

/** A temporary file beside `file`, created exclusively (never through a link), then renamed over it. */
function writeAtomic(file: string, text: string, mode?: number): void {
  const tmp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`,
  );
  try {
    const fd = openSync(
      tmp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
      mode ?? 0o666,
    );
    try {
      const data = Buffer.from(text);
      let done = 0;
      while (done < data.length) done += writeSync(fd, data, done);
    } finally {
      closeSync(fd);
    }
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
