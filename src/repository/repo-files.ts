/**
 * Reading the repository's files and folders for the loader, through its jail (see jail.ts): the
 * only module of the loader that touches the disk. A refused file (a link leaving the repository,
 * a special file, an oversized or non-UTF-8 one) is reported at `file:line:column` naming the file,
 * and reads as absent.
 */
import type { Diagnostics } from "./diagnostics";
import type { JailEntry, JailRead, RepositoryJail } from "./jail";

export type FolderEntry = JailEntry;

/** Reports a refused read at `file` (at its bad byte when there is one). */
export function reportRefused(file: string, read: JailRead, diag: Diagnostics): void {
  if (read.kind === "refused")
    diag.add({ file, line: read.line ?? 1, column: read.column ?? 1, path: "", message: read.message });
}

/**
 * How long the loader reads before it lets other work of the process run: a command reads the
 * platform while the files are read (see `LoadOptions.onSettings`), and its answers are handled
 * only between reads.
 */
const TURN_MS = 8;
let turnStarted = performance.now();

/** Lets pending I/O callbacks run once {@link TURN_MS} have passed since they last could. */
async function shareTurn(): Promise<void> {
  if (performance.now() - turnStarted < TURN_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  turnStarted = performance.now();
}

/** A file's text; undefined when it does not exist, or when it is refused or is a folder (reported). */
export async function readText(jail: RepositoryJail, file: string, diag: Diagnostics): Promise<string | undefined> {
  await shareTurn();
  const read = jail.readText(file);
  reportRefused(file, read, diag);
  if (read.kind === "missing" && read.folder) diag.atFile(file, folderNotFile(file));
  return read.kind === "text" ? read.text : undefined;
}

/** The refusal of a folder found where a file is expected (`svc.yaml/`, `canvases/x/canvas.yaml/`, `canvases/x/y.py/`). */
export function folderNotFile(file: string): string {
  return `found a folder named ${file.split("/").pop()}, expected a file: ${file} is read as a file; rename or remove the folder`;
}

/** A folder's visible entries sorted by name; [] when it does not exist or is refused (reported at the folder). */
export async function listFolder(jail: RepositoryJail, folder: string, diag: Diagnostics): Promise<FolderEntry[]> {
  const listing = jail.listFolder(folder);
  if (listing.kind === "entries") return listing.entries;
  diag.atFile(folder, listing.message);
  return [];
}
