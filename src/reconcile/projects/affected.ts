/**
 * Which projects a change affects (pure): a project is affected by a changed file under its own
 * folder, or by a changed file outside it that it reads (a shared helper module). A project whose
 * svc.yaml was at the base but is gone now, and whose name no project has any more, is removed; one
 * whose folder moved keeps its name and is affected (everything in it is new).
 */
import { posix } from "node:path";
import type { ProjectEntry } from "./find-projects";

export interface AffectedProject extends ProjectEntry {
  /** Why it is listed: the first changed file of its own, or the changed file it reads. */
  because: string;
}

export interface RemovedProject {
  dir: string;
  project?: string;
}

export interface Affected {
  affected: AffectedProject[];
  removed: RemovedProject[];
}

/**
 * @param projects the projects now
 * @param changed the changed files (from the repository root)
 * @param before the projects at the base: folder and name
 */
export function affectedProjects(
  projects: readonly ProjectEntry[],
  changed: readonly string[],
  before: readonly RemovedProject[],
): Affected {
  const changedSet = new Set(changed);
  // The deepest project folder owns a file: a project nested in another's folder is its own.
  const byDir = new Map(projects.map((p) => [p.dir, p]));
  const owner = (file: string) => {
    for (let at = posix.dirname(file); ; at = posix.dirname(at)) {
      const p = byDir.get(at);
      if (p) return p;
      if (at === ".") return undefined;
    }
  };
  const own = new Map<string, string>();
  for (const file of changed) {
    const p = owner(file);
    if (p && !own.has(p.dir)) own.set(p.dir, file);
  }
  const affected: AffectedProject[] = [];
  for (const p of projects) {
    const because = own.get(p.dir) ?? p.reads.find((f) => changedSet.has(f));
    if (because !== undefined) affected.push({ ...p, because });
  }
  const namesNow = new Set(projects.map((p) => p.project).filter(Boolean));
  const dirsNow = new Set(projects.map((p) => p.dir));
  const removed = before.filter((b) => !dirsNow.has(b.dir) && !(b.project && namesNow.has(b.project)));
  return { affected, removed: [...removed].sort((a, b) => (a.dir < b.dir ? -1 : 1)) };
}

/** One entry per project and target, as a GitHub Actions `strategy.matrix` takes it. */
export interface MatrixEntry {
  project: string;
  dir: string;
  target: string;
}

/** The matrix: every (project, target), or only the targets asked for; projects that do not load are left out (the caller reports them). */
export function matrixOf(projects: readonly ProjectEntry[], targets?: readonly string[]): { include: MatrixEntry[] } {
  const include: MatrixEntry[] = [];
  for (const p of projects) {
    // A folder in error (its svc.yaml does not load, or its name is another folder's too) gets no job.
    if (!p.project || p.error) continue;
    for (const target of p.targets)
      if (!targets?.length || targets.includes(target)) include.push({ project: p.project, dir: p.dir, target });
  }
  return { include };
}
