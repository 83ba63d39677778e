/**
 * The files of a new repository (`svc-iac init`): svc.yaml, one canvas with one UDF, the starter
 * policy rules (`policies.yaml`, docs/policies.md) and a .gitignore for the local state. Pure: paths and texts only; the command writes them. Every YAML
 * file starts with a `yaml-language-server` comment pointing at the package's JSON Schema, so an
 * editor completes and checks it from the first keystroke.
 *
 * Folder `init/`: the starter repository of `svc-iac init`; imports nothing but the starter policy
 * rules (`src/policy/starter.ts`, a text).
 */
import { posix } from "node:path";
import { STARTER_POLICIES } from "../../policy/starter";

export interface StarterOptions {
  /** The project name (`[a-z0-9][a-z0-9_-]*`). */
  project: string;
  /**
   * Where the schemas are, as the YAML files should point at them: a folder relative to the
   * repository root (`node_modules/svc-iac/schemas`) or an `http(s)` URL of a folder.
   */
  schemaBase: string;
}

/** Repository-relative path → file text, sorted by path. */
export type StarterFiles = Record<string, string>;

export const PROJECT_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** A project name from a folder name: lower case, other characters as `-`; `my-project` when nothing is left. */
export function projectNameFrom(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[-_]+|-+$/g, "");
  return PROJECT_NAME.test(name) ? name : "my-project";
}

/** What init puts in .gitignore: the local state's folder, with why. */
const GITIGNORE_LINES = "# svc-iac's local state: the embedded emulator's data and the default inventory.\n.svc-iac/\n";

/** Lines of a .gitignore that already ignore the `.svc-iac` folder at the repository's root. */
const IGNORES_STATE = /^\s*\/?(\*\*\/)?\.svc-iac(\/(\*\*?)?)?\s*$/;

/**
 * An existing .gitignore with init's lines appended, or `undefined` when it already ignores
 * `.svc-iac/` (a line `.svc-iac/`, `/.svc-iac`, `.svc-iac/*`, …): init never rewrites what is there.
 */
export function gitignoreWithState(existing: string): string | undefined {
  // The last rule about the folder wins in git: a later `!.svc-iac/` un-ignores it again.
  const rules = existing.split(/\r?\n/).filter((l) => IGNORES_STATE.test(l) || UNIGNORES_STATE.test(l));
  if (rules.length && IGNORES_STATE.test(rules.at(-1)!)) return undefined;
  // Written with the file's own line endings.
  const eol = existing.includes("\r\n") ? "\r\n" : "\n";
  const separator = existing === "" ? "" : existing.endsWith("\n") ? eol : `${eol}${eol}`;
  return `${existing}${separator}${GITIGNORE_LINES.replace(/\n/g, eol)}`;
}

/** Lines that un-ignore the `.svc-iac` folder (`!.svc-iac/`). */
const UNIGNORES_STATE = /^\s*!\/?(\*\*\/)?\.svc-iac(\/(\*\*?)?)?\s*$/;

export function starterFiles(opts: StarterOptions): StarterFiles {
  const canvas = opts.project.replace(/-/g, "_");
  const schema = (file: string, kind: string) =>
    `# yaml-language-server: $schema=${schemaRef(opts.schemaBase, file, kind)}\n`;
  const files: StarterFiles = {
    ".gitignore": GITIGNORE_LINES,
    "policies.yaml": STARTER_POLICIES,
    "svc.yaml":
      schema("svc.yaml", "svc") +
      "#\n" +
      "# The project. Without SVC_BASE_URL, `svc-iac plan` and `apply` run on an embedded emulator\n" +
      "# (state under .svc-iac/); set SVC_BASE_URL and SVC_TOKEN to reach the platform.\n" +
      `project: ${opts.project}\n` +
      "variables:\n" +
      "  greeting: Hello\n",
    [`canvases/${canvas}/canvas.yaml`]:
      schema(`canvases/${canvas}/canvas.yaml`, "canvas") +
      "# A team canvas; the folder name is the canvas name. Add `share: {}` to share it.\naccess_scope: team\n",
    [`canvases/${canvas}/hello.py`]:
      "@fused.udf\n" +
      'def udf(name: str = "world"):\n' +
      '    """Greets someone: the first UDF of the canvas (one .py file per UDF)."""\n' +
      "    import pandas as pd\n\n" +
      '    return pd.DataFrame([{"greeting": f"Hello, {name}!"}])\n',
    [`canvases/${canvas}/hello.yaml`]:
      schema(`canvases/${canvas}/hello.yaml`, "udf") +
      'metadata:\n  "fused:description": ${var.greeting} from svc-iac\n',
  };
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The `$schema` value for a file: the URL, or the folder relative to the file's own folder. */
export function schemaRef(schemaBase: string, file: string, kind: string): string {
  const name = `${kind}.schema.json`;
  if (/^https?:\/\//.test(schemaBase)) return `${schemaBase.replace(/\/+$/, "")}/${name}`;
  return posix.join(posix.relative(posix.dirname(file) || ".", schemaBase) || ".", name);
}
