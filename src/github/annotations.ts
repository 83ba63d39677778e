/**
 * Validation errors as workflow annotations, so GitHub shows each one on the YAML or `.py` line
 * in the pull request's "Files changed" view.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { LoadError } from "../model/desired";
import type { PolicyReport } from "../policy/model";
import { annotation } from "./workflow-commands";

export interface AnnotationPaths {
  /** The repository folder the command ran in (holding svc.yaml); LoadError files are relative to it. */
  repoDir: string;
  /** `$GITHUB_WORKSPACE`: annotations name files relative to the checkout's root. @default the current directory */
  workspace?: string;
}

/**
 * The path GitHub expects for a file of the repository folder: relative to the workspace root,
 * with `/` separators (`infra/canvases/sales/canvas.yaml`).
 */
export function workspacePath(file: string, paths: AnnotationPaths): string {
  const absolute = resolve(paths.repoDir, file);
  const rel = relative(resolve(paths.workspace ?? "."), absolute);
  // A repository folder outside the workspace cannot be linked; the absolute path still reads well in the log.
  const shown = rel.startsWith("..") || isAbsolute(rel) ? absolute : rel;
  return shown.split(sep).join("/");
}

/**
 * One `::error file=…,line=…,col=…,title=…::` line per validation error, in the order given.
 * @example
 * loadErrorAnnotations([{ file: "svc.yaml", line: 3, column: 1, path: "prune", message: "expected true or false" }], { repoDir: "infra" })
 * // ["::error file=infra/svc.yaml,line=3,col=1,title=svc-iac%3A invalid configuration::prune: expected true or false\n"]
 */
export function loadErrorAnnotations(errors: readonly LoadError[], paths: AnnotationPaths): string[] {
  return errors.map((e) =>
    annotation("error", e.path ? `${e.path}: ${e.message}` : e.message, {
      file: workspacePath(e.file, paths),
      line: e.line,
      col: e.column,
      title: "svc-iac: invalid configuration",
    }),
  );
}

/**
 * One annotation per policy result not exempted, on the object's file and line (the rule's when
 * the result is about the whole plan): `error` for a mandatory rule, `warning` for an advisory one.
 */
export function policyAnnotations(report: PolicyReport, paths: AnnotationPaths): string[] {
  return report.results
    .filter((r) => !r.exempted)
    .map((r) => {
      const at = r.source ?? r.rule_source;
      return annotation(
        r.severity === "mandatory" ? "error" : "warning",
        `${r.address ? `${r.address}: ` : ""}${r.message} (rule ${r.rule}, ${r.rule_source.file}:${r.rule_source.line})`,
        {
          file: workspacePath(at.file, paths),
          line: at.line,
          col: at.column,
          title: `svc-iac policy: ${r.rule}`,
        },
      );
    });
}
