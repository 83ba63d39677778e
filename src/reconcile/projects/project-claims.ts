/**
 * One project, one folder. A project's name is its identity on the platform and in its state (the
 * inventory lives at `<state>/<project>/<target>`, objects are adopted by name), so two folders
 * claiming one name would plan and apply against the same objects: the second folder's "no
 * changes" would replace the first's plan in a combined comment, and its prune would delete the
 * first folder's objects. Since the state location ends in `<project>/<target>`,
 * two folders can share a state location only by sharing a name: refusing the one refuses the other.
 */
import { relative, resolve, sep } from "node:path";
import type { LoadError, SourceLocation } from "../../model/desired";
import { formatLoadError } from "../../model/desired";
import { RepositoryJail } from "../../repository/jail";
import { SVC_FILE } from "../load/names";
import { projectFolders } from "./find-projects";
import { readSvcNames } from "./svc-names";

export interface Claimant {
  /** The folder relative to the repository root, `/`-separated; "." for the root. */
  dir: string;
  project?: string;
  /** Where `project:` stands in that folder's svc.yaml. */
  projectAt?: SourceLocation;
}

const svcFileOf = (dir: string) => (dir === "." ? SVC_FILE : `${dir}/${SVC_FILE}`);

/** Each claimant whose name another folder also claims, with those other folders (pure). */
export function sharedNames<T extends Claimant>(entries: readonly T[]): Map<T, T[]> {
  const byName = new Map<string, T[]>();
  for (const e of entries) {
    if (e.project === undefined) continue;
    byName.set(e.project, [...(byName.get(e.project) ?? []), e]);
  }
  const out = new Map<T, T[]>();
  for (const group of byName.values())
    if (group.length > 1)
      for (const e of group)
        out.set(
          e,
          group.filter((o) => o !== e),
        );
  return out;
}

/** Why `project` may not be claimed here: the other folders that claim it, each with its svc.yaml. */
export function claimMessage(project: string, others: readonly Claimant[]): string {
  const named = others.map((o) => `${o.dir === "." ? "the repository root" : o.dir} (${svcFileOf(o.dir)})`);
  return `"${project}" is also the project of ${named.join(" and ")}. A project name, with its targets, state and objects, belongs to one folder: both folders would plan, apply and prune the same objects. Give one of them another name.`;
}

/** The projects command's error for each folder whose name another folder claims, by folder, as `dir/svc.yaml:line:column: message`. */
export function sharedNameErrors(entries: readonly Claimant[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [e, others] of sharedNames(entries))
    out.set(
      e.dir,
      formatLoadError({
        file: svcFileOf(e.dir),
        line: e.projectAt?.line ?? 1,
        column: e.projectAt?.column ?? 1,
        path: "project",
        message: claimMessage(e.project!, others),
      }),
    );
  return out;
}

/**
 * Before a plan, apply or destroy of the project at `projectDir` named `project`: the other folders
 * of its repository (the git work tree, else the folder itself) whose svc.yaml claims the same name,
 * as one load error at this svc.yaml's `project:`. Empty when the name is this folder's alone.
 */
export async function otherClaimsOf(projectDir: string, project: string): Promise<LoadError[]> {
  const root = RepositoryJail.forProject(projectDir).root;
  const own = relative(root, resolve(projectDir)).split(sep).join("/") || ".";
  const entries: Claimant[] = [];
  for (const dir of projectFolders(root, ".")) {
    if (dir === own) continue;
    const names = await readSvcNames(root, dir);
    if (names.project === project) entries.push({ dir, project: names.project });
  }
  if (!entries.length) return [];
  const at = (await readSvcNames(root, own)).projectAt;
  return [
    {
      file: SVC_FILE,
      line: at?.line ?? 1,
      column: at?.column ?? 1,
      path: "project",
      message: claimMessage(project, entries),
    },
  ];
}
