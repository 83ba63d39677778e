/**
 * The projects of a repository (monorepos): every folder holding an `svc.yaml`, with its project
 * name and targets, and the files outside its folder that it reads (helper modules listed in a
 * UDF's `headers:`), so a change to a shared file marks every project that reads it.
 * Reads the disk; what is affected by a change is decided in `affected.ts`.
 *
 * Folder `projects/`: the steps of `svc-iac projects` (`../commands/projects.ts`): finding the
 * projects of a repository, what git says changed, and which projects a change affects (pure,
 * `affected.ts`). May import `src/model`, `src/repository` and `../load` (svc.yaml); nothing of the later steps.
 */
import { readdirSync } from "node:fs";
import type { SourceLocation } from "../../model/desired";
import { join, posix } from "node:path";
import { RepositoryJail } from "../../repository/jail";
import { SVC_FILE } from "../load/names";
import { parseBoundedYaml } from "../../repository/yaml-parse";
import { readSvcNames } from "./svc-names";

export interface ProjectEntry {
  /** The project's folder relative to the repository root, `/`-separated; "." for the root itself. */
  dir: string;
  /** The `project:` of its svc.yaml (absent when svc.yaml does not load). */
  project?: string;
  /** Every target it declares, `default` included, sorted. */
  targets: string[];
  /** Files outside `dir` that it reads (relative to the repository root), sorted. */
  reads: string[];
  /** Why its svc.yaml does not load, or why its name is refused, as `file:line:column: message`. */
  error?: string;
  /** Where `project:` stands in its svc.yaml. */
  projectAt?: SourceLocation;
}

/** Folders never searched for projects: dependencies, state, and hidden folders. */
const SKIPPED = new Set(["node_modules", ".git", ".svc-iac"]);
/** Largest UDF settings file read for its `headers:` (the loader refuses larger ones itself). */
const MAX_SETTINGS_BYTES = 1024 * 1024;

/** The folders under `scope` (relative to `root`) that hold an svc.yaml: from git's file list when given, else by walking. */
export function projectFolders(root: string, scope: string, trackedFiles?: readonly string[]): string[] {
  const inScope = (p: string) => scope === "." || p === scope || p.startsWith(`${scope}/`);
  if (trackedFiles) {
    return trackedFiles
      .filter((f) => posix.basename(f) === SVC_FILE && inScope(posix.dirname(f)))
      .map((f) => posix.dirname(f))
      .sort();
  }
  const found: string[] = [];
  const walk = (folder: string) => {
    let entries;
    try {
      entries = readdirSync(join(root, folder), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isFile() && e.name === SVC_FILE) found.push(folder);
      // Symbolic links are not followed: a link cannot make a folder outside the repository a project.
      else if (e.isDirectory() && !SKIPPED.has(e.name) && !e.name.startsWith("."))
        walk(folder === "." ? e.name : `${folder}/${e.name}`);
    }
  };
  walk(scope);
  return found.sort();
}

/** Each project folder with the files outside it that it reads; names and targets are left to {@link withNames}. */
export function projectsReading(
  root: string,
  dirs: readonly string[],
  mayHaveHeaders?: ReadonlySet<string>,
): ProjectEntry[] {
  return dirs.map((dir) => ({ dir, targets: [], reads: helperFilesOutside(root, dir, mayHaveHeaders) }));
}

/** The entries with the name and targets their svc.yaml gives (or why it does not load). */
export async function withNames<T extends ProjectEntry>(root: string, entries: readonly T[]): Promise<T[]> {
  const out: T[] = [];
  for (const entry of entries) {
    const { project, targets, error, projectAt } = await readSvcNames(root, entry.dir);
    out.push({
      ...entry,
      targets,
      ...(project !== undefined ? { project } : {}),
      ...(projectAt !== undefined ? { projectAt } : {}),
      ...(error !== undefined ? { error } : {}),
    });
  }
  return out;
}

/**
 * The helper modules (`headers: [{file: …}]` of `canvases/<canvas>/<slug>.yaml`) that lie outside
 * the project's folder, as paths from the repository root. A file that does not parse is skipped
 * here: the loader reports it when the project is planned, which a change to it triggers anyway.
 */
export function helperFilesOutside(root: string, dir: string, mayHaveHeaders?: ReadonlySet<string>): string[] {
  const reads = new Set<string>();
  const canvases = posix.join(dir, "canvases");
  const settingsFiles = mayHaveHeaders
    ? [...mayHaveHeaders].filter(
        (f) => f.startsWith(`${canvases}/`) && f.split("/").length === canvases.split("/").length + 2,
      )
    : subfolders(root, canvases).flatMap((canvas) =>
        filesIn(root, posix.join(canvases, canvas)).map((name) => posix.join(canvases, canvas, name)),
      );
  for (const settingsFile of settingsFiles) {
    const folder = posix.dirname(settingsFile);
    if (!settingsFile.endsWith(".yaml") || posix.basename(settingsFile) === "canvas.yaml") continue;
    for (const file of headerFiles(root, settingsFile)) {
      const path = posix.normalize(posix.join(folder, file.replace(/\\/g, "/")));
      if (!path.startsWith("../") && path !== ".." && !isInside(path, dir)) reads.add(path);
    }
  }
  return [...reads].sort();
}

const isInside = (path: string, dir: string) => dir === "." || path.startsWith(`${dir}/`);

function headerFiles(root: string, file: string): string[] {
  // Through the repository's jail: opened once, a regular file inside the repository, bounded.
  const read = RepositoryJail.forProject(root).readText(file, { maxBytes: MAX_SETTINGS_BYTES });
  if (read.kind !== "text") return [];
  const text = read.text;
  if (!text.includes("headers")) return [];
  // Within the loader's bounds (size, nesting, aliases), so toJS expands nothing unbounded.
  const parsed = parseBoundedYaml(text);
  if (!parsed.ok) return [];
  const headers = (parsed.doc.toJS({ maxAliasCount: -1 }) as { headers?: unknown } | null)?.headers;
  if (!Array.isArray(headers)) return [];
  return headers.flatMap((h) =>
    h && typeof h === "object" && typeof (h as { file?: unknown }).file === "string"
      ? [(h as { file: string }).file]
      : [],
  );
}

function subfolders(root: string, folder: string): string[] {
  try {
    return readdirSync(join(root, folder), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

function filesIn(root: string, folder: string): string[] {
  try {
    return readdirSync(join(root, folder), { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}
