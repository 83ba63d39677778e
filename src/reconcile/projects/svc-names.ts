/**
 * The name and targets of a project, read from its svc.yaml as the loader reads them (same
 * bounds, same messages and positions), but nothing else of it: finding the projects of a large
 * monorepo must not load the kinds' definitions, and every other field is checked when the project
 * itself is planned.
 */
import { join, posix } from "node:path";
import { isAlias, isMap, isScalar, type Alias, type Node } from "yaml";
import { formatLoadError } from "../../model/desired";
import { Diagnostics } from "../../repository/diagnostics";
import { MapReader, report, rootReader, type ReadContext } from "../../repository/fields";
import { RepositoryJail } from "../../repository/jail";
import { badTargetName, DEFAULT_TARGET, PATTERNS, PROJECT_EXPECTED, SVC_FILE } from "../load/names";
import { Resolver } from "../../repository/variables";
import { parseBoundedYaml } from "../../repository/yaml-parse";
import { locate, readYaml } from "../../repository/yaml-source";
import type { SourceLocation } from "../../model/desired";

export interface SvcNames {
  /** The `project:`; absent when svc.yaml does not give a valid one. */
  project?: string;
  /** Every target declared, `default` included, sorted. */
  targets: string[];
  /** The first error, as `dir/svc.yaml:line:column: message`. */
  error?: string;
  /** Where `project:`'s value stands in svc.yaml (when it gives one). */
  projectAt?: SourceLocation;
}

/** Reads `<root>/<dir>/svc.yaml` for its project name and targets. */
export async function readSvcNames(root: string, dir: string): Promise<SvcNames> {
  const diag = new Diagnostics();
  const src = await readYaml(RepositoryJail.forProject(join(root, dir)), SVC_FILE, diag);
  let project: string | undefined;
  let projectAt: SourceLocation | undefined;
  const targets = new Set([DEFAULT_TARGET]);
  if (src) {
    const ctx: ReadContext = {
      src,
      diag,
      vars: new Resolver({
        variables: undefined,
        env: {},
        target: `target "${DEFAULT_TARGET}"`,
        allowVariables: false,
      }),
    };
    const top = rootReader(ctx, "any");
    project = top.string("project", { required: true, pattern: PATTERNS.project, expected: PROJECT_EXPECTED });
    projectAt = locate(src, top.valueNode("project"), "project");
    if (top.has("targets")) {
      for (const e of new MapReader(ctx, top.valueNode("targets"), "targets", "any").entries()) {
        if (PATTERNS.target.test(e.name)) targets.add(e.name);
        else report(ctx, e.keyNode, e.path, badTargetName(e.name));
      }
    }
  } else if (!diag.count) {
    diag.atFile(SVC_FILE, "svc.yaml not found");
  }
  const first = diag.errors[0];
  if (first) return { targets: [], error: formatLoadError({ ...first, file: posix.join(dir, first.file) }) };
  return { project, targets: [...targets].sort(), ...(projectAt ? { projectAt } : {}) };
}

/** The `project:` of an svc.yaml's text (parsed within the loader's bounds), when it says one. */
export function projectNameIn(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const parsed = parseBoundedYaml(text);
  const project =
    parsed.ok && isMap(parsed.doc.contents)
      ? unaliasIn(parsed.aliases, parsed.doc.contents.get("project", true))
      : undefined;
  return isScalar(project) && typeof project.value === "string" ? project.value : undefined;
}

const unaliasIn = (aliases: ReadonlyMap<Alias, Node>, node: unknown) => (isAlias(node) ? aliases.get(node) : node);
