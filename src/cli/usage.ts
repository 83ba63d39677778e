/**
 * Usage text (the whole, and each command's for `svc-iac COMMAND --help`) and the error for bad
 * command lines. Loaded by every run: it holds no logic and imports only the error base.
 */
import { SvcError } from "../errors";

export class CliUsageError extends SvcError {
  override readonly name = "CliUsageError";
  constructor(message: string) {
    super("usage", message);
  }
}

/** The commands, in the order the help lists them. */
export const COMMAND_NAMES = [
  "emulator",
  "init",
  "validate",
  "plan",
  "apply",
  "drift",
  "test",
  "destroy",
  "import",
  "forget",
  "show",
  "history",
  "rollback",
  "run",
  "projects",
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export const isCommandName = (s: string): s is CommandName => (COMMAND_NAMES as readonly string[]).includes(s);

/** Each command's synopsis and description, as the help shows it. */
const COMMAND_USAGE: Record<CommandName, string> = {
  emulator: `  svc-iac emulator [--host 127.0.0.1] [--port N] [--data-dir DIR] [--seed FILE] [--faults SPEC] [--import-max-bytes N]
                   [--python PATH] [--run-time-limit SECONDS]
      Runs a local emulator of the platform API. Its first stdout line is one JSON object with
      base_url, udf_base_url, user_token, service_token, client_id, other_user_token,
      basic_user_token and pid (the process to stop: kill it by this pid, not npx's). Logs go to stderr. Ctrl-C (SIGINT) or SIGTERM stops it. UDF runs execute
      in --python (default python3, started on the first run; missing: runs answer 501), killed
      after --run-time-limit seconds (default 60).
`,
  init: `  svc-iac init [DIR] [--project NAME] [--schemas URL|DIR]
      Writes a minimal repository in DIR (default: here): svc.yaml, one canvas with one UDF and a
      .gitignore for .svc-iac/. Each YAML file's first line points the editor (yaml-language-server)
      at the package's JSON Schema: node_modules/svc-iac/schemas, or --schemas. The project is named
      after DIR ("My Project": my-project) unless --project. An existing .gitignore gets .svc-iac/
      appended when it lacks it; any other file is never overwritten: when one exists it names it
      and writes nothing. Exit 0 done, 1 error.
`,
  validate: `  svc-iac validate [DIR] [--target T] [--json] [--policies PATH] [--policies-ref REF]
      Loads and checks the repository (svc.yaml, canvases, cronjobs, secrets, service accounts,
      bucket policies), reading only files inside it, and parses every .py with Python's own parser
      (SVC_PYTHON, default python3; SVC_PYTHON= skips that check). Prints every error as
      file:line:column. Checks the policy rules (policies.yaml, or --policies PATH, or policies.yaml
      at the git revision --policies-ref REF) on the declared objects. Sends nothing.
      Exit 0 valid, 1 not (or a mandatory policy rule not met).
`,
  plan: `  svc-iac plan [DIR] [--target T] [--json] [--out FILE] [--detailed-exitcode] [--graph [mermaid|dot]]
               [--prune] [--max-deletions N] [--allow-delete-all] [--allow-cascade] [--outputs FILE] [--discard-tokens]
               [--only ADDRESS]... [--replace ADDRESS]... [--policies PATH] [--policies-ref REF]
      Shows what apply would do, every object with its attributes (apply groups creates by canvas).
      Writes nothing on the platform; --out FILE saves the plan for apply --plan FILE. A deletion or replacement that would take an object the project does not
      manage with it (a hand-made UDF on a deleted canvas, a hand-made cronjob of a replaced UDF)
      stops the plan, naming it, unless --allow-cascade.
      --only ADDRESS (repeatable; * stands for any text, e.g. "udf.listings/*") plans only the
      matching objects and what they need, and says the plan is partial. --replace ADDRESS
      (repeatable) replaces an object now: a share gets a new token, a service account a new
      account, a UDF, cronjob or secret is re-created. An address that matches nothing: exit 1.
      --graph prints instead the plan's diagram (the one pull-request comments show): the objects
      that change and what they refer to, as Mermaid, or Graphviz DOT with --graph dot.
      A mandatory policy rule not met by a planned change stops the plan (exit 1).
      Exit 0 (with --detailed-exitcode: 0 no changes, 2 changes), 1 error.
`,
  apply: `  svc-iac apply [DIR] [--target T] [--auto-approve] [--prune] [--max-deletions N] [--allow-delete-all] [--allow-cascade]
                [--outputs FILE] [--discard-tokens] [--concurrency N] [--force-unlock ID|all] [--test] [--json]
                [--verbose] [--only ADDRESS]... [--replace ADDRESS]... [--policies PATH] [--policies-ref REF]
      Makes the platform match the repository (or, with --only, the matching objects), under a lock.
      New tokens go only to --outputs FILE (mode 0600). --test then runs the tests of the UDFs it
      changed. Exit 0 done, 1 error, a failed step (run it again: it converges) or a failed test.
      Prints the plan, progress on stderr and a report. Objects created on one canvas show as one
      line when there are 5 or more ("canvas.sales and its 100 UDFs (u00000 … u00099)"); updates,
      replacements and deletions keep their diffs. Progress is a status line on a terminal; in a
      pipe or a log, each failure and a line per canvas once it is done. --verbose lists every
      object, and in a pipe every finished step.

  svc-iac apply [DIR] --plan FILE [--target T] [--outputs FILE] [--discard-tokens] [--concurrency N] [--test] [--json] [--verbose]
                [--policies PATH] [--policies-ref REF]
      Executes exactly the saved plan FILE (written by plan --out FILE). Re-reads the repository
      and the platform first and refuses, writing nothing, when either changed for the objects the
      plan touches, or the policy rules are not those it was planned under ("Saved plan is stale"). Exit 0 done, 1 stale, error or a failed step.
`,
  drift: `  svc-iac drift [DIR] [--target T] [--format text|md|json] [--json] [--out FILE] [--policies PATH] [--policies-ref REF]
      Reports changed, missing, orphaned, unmanaged and pending objects. Writes nothing on the platform.
      Prints text (in a terminal, a pipe or a file), or Markdown with --format md (or markdown; the
      default when stdout is the job summary, $GITHUB_STEP_SUMMARY) or JSON with --format json.
      --out FILE also writes the report to FILE: in --format when given, else Markdown (JSON when
      FILE ends in .json). Checks the policy rules on what the platform holds.
      Exit 0 no drift, 2 drift (or a mandatory policy rule not met), 1 error.
  svc-iac drift [DIR] --remediate [--target T] [--force-restore ADDRESS]... [--json] [--out FILE]
      Settles drift as each object's on_drift says (object settings, canvas.yaml, the target, the
      project; default report), under the lock: restore applies the repository's version back
      (with the plan's guards), keep writes the platform's version into the files (as import
      --keep), report only reports. An object restored flapping.restores times within
      flapping.within (default 3 in 7d) is contested and left alone; --force-restore ADDRESS
      restores it anyway. --json prints {"restored","kept","reported","contested"}.
      Exit 0 no drift remains, 2 some remains (reported or contested), 1 error.
`,
  test: `  svc-iac test [DIR] [--target T] [--only ADDRESS]... [--json]
      Runs the tests: declared in the UDFs' <slug>.yaml against the deployed UDFs, on the target's
      real-time instance. Prints each result and the differences found. Writes nothing.
      Exit 0 all passed (or none declared), 1 a failure or an error.
`,
  destroy: `  svc-iac destroy [DIR] [--target T] [--auto-approve] [--allow-cascade] [--concurrency N] [--force-unlock ID|all] [--json]
                  [--verbose]
      Deletes every object in the target's inventory, and nothing else, in reverse dependency
      order, under the lock; asks for "yes" like apply (or --auto-approve). Stops, deleting
      nothing, at a protected object or an object of another owner a deletion would take along
      (--allow-cascade). Leaves the inventory empty. Shows deletions one line per canvas, as apply
      does creates, unless --verbose. Exit 0 done, 1 error, stopped or cancelled.
`,
  import: `  svc-iac import [DIR] [--target T] [--canvas NAME]... [--all] [--cronjobs] [--secrets]
                 [--service-accounts] [--layout svc-iac|platform] [--dry-run] [--force]
                 [--project NAME] [--json]
      Reads the platform and writes the repository files for the chosen canvases (with their
      UDFs, helper modules and shares), cronjobs, secret keys (values as \${env.NAME}) and service
      accounts (--all: also the UDFs without a canvas, as udfs/<slug>.py), then binds them in the
      target's inventory so the next plan is empty. Never overwrites a file without --force;
      --dry-run writes nothing. --layout platform writes the platform's own git layout
      (<Canvas>/collection.json, <Canvas>/<slug>/meta.json, udfs/<slug>/meta.json) instead of
      canvases/. Exit 0 done, 1 error.

  svc-iac import ADDRESS... [DIR] [--target T] [--dry-run] [--force] [--json]
      Single objects (udf.<canvas>/<slug>, udf.<slug> without a canvas, cronjob.<name>), e.g.
      after forget: writes only their files (a UDF's code, settings and helper modules; a
      cronjob's file) and binds only them;
      every other file, canvas.yaml with its comments and \${var...} references included, is left
      as it is.

  svc-iac import [DIR] [--target T] --keep ADDRESS [--keep ADDRESS]... [--dry-run] [--json]
      The drift report's keep: writes the platform's value of the fields that drifted on these
      changed objects into the files that declare them, and nothing else. Refuses, writing
      nothing, where a field is a \${var...} reference or one it does not write back, or where
      the files would not validate (a UDF whose platform body is plain Python).
`,
  forget: `  svc-iac forget [DIR] ADDRESS... [--target T] [--json]
      Stops managing these objects without touching them (as terraform state rm): each leaves the
      target's inventory, under the lock, and is recorded as forgotten, so plan, drift and prune
      leave it alone and drift does not report it as unmanaged; import can bind it again. Refused,
      changing nothing, while a file still declares an address. To have it reviewed in a pull
      request instead, list the addresses under removed: in svc.yaml (the next apply forgets them).
      Exit 0 done, 1 error.
`,
  show: `  svc-iac show [DIR] [--target T] [ADDRESS]... [--offline] [--json]
      Lists what the target deployed: each object of its inventory (or those matching ADDRESS, *
      for any text) with its id, where it is declared (file:line), what it refers to, its
      platform URLs (shared UDFs, the canvas's page) and its outputs, and whether it drifted.
      Secrets, share tokens inside URLs included, show as present or absent, never as values.
      --offline reads only the inventory and the repository, not the platform. DIR may also come
      after the addresses, as in run. Writes nothing on the platform. Exit 0 shown, 1 error or an
      ADDRESS that matches nothing.
`,
  history: `  svc-iac history [DIR] [--target T] [ADDRESS]... [--json]
      Lists the target's deployments, newest first, from its state: each apply (and rollback)
      that changed something, with its id, time, git commit (and whether the tree had changes not
      committed), who ran it and the objects it changed. With ADDRESS (* for any text), only the
      deployments that changed a matching object. Retention: history: {keep: N, max_age: 90d} in
      svc.yaml (default: the last 100). Reads nothing on the platform but a remote state.
      Exit 0 listed, 1 error or an ADDRESS no deployment changed.
`,
  rollback: `  svc-iac rollback [DIR] --to DEPLOYMENT [ADDRESS]... [--target T] [--auto-approve] [--max-deletions N]
                   [--allow-delete-all] [--allow-cascade] [--outputs FILE] [--discard-tokens] [--concurrency N]
                   [--force-unlock ID|all] [--json] [--verbose]
      Plans the platform back to what it was after deployment DEPLOYMENT of svc-iac history (or
      only the objects matching ADDRESS, * for any text): UDF code and settings, canvases,
      cronjobs back as they were deployed then, objects made since deleted. Secret values and
      tokens are never restored from history (a secret takes its value from the repository).
      Shows the plan and asks for "yes" like apply (--auto-approve; refused without a terminal),
      applies it under the lock with apply's guards, and records it as a deployment. Then says
      how to write the restored settings into the files (import --keep): until then the next
      apply puts the repository's back. Exit 0 done, 1 error, stopped or cancelled.
`,
  run: `  svc-iac run ADDRESS [DIR] [--target T] [--param name=value]... [--format json|csv]
      Runs the deployed UDF ADDRESS (udf.<canvas>/<slug>) once on the target's real-time instance
      and prints its result: a table, or the platform's JSON or CSV with --format; then the time
      it took and whether the result came from the cache. Parameters are text, converted by the
      UDF's annotations. Writes nothing. Exit 0 it ran, 1 the UDF failed (the platform's message)
      or an error.
`,
  projects: `  svc-iac projects [DIR] [--changed-since REF] [--target T]... [--json | --format matrix|json]
      Lists the projects under DIR (folders holding svc.yaml, found through git's file list) with
      their targets. With --changed-since REF, only those a change since REF (compared from the
      merge base, as a pull request's diff, uncommitted files included) affects: a file under the
      project, or a file outside it that the project reads (a helper module in headers:), and the
      projects that existed at REF and no longer do (listed as removed; nothing is deleted).
      --json (--format matrix) prints a GitHub Actions matrix: {"include":[{"project","dir",
      "target"}, …]} (one entry per target, or per --target); --format json prints the whole
      result for scripts: projects (and why), removed projects, the matrix and errors. Exit 0
      listed, 1 an error.
`,
};

/** Where the commands that reach the platform find it. */
const PLATFORM_NOTE = `  Without SVC_BASE_URL the commands run on an embedded emulator with its state in
  DIR/.svc-iac/local/. Credentials: SVC_BASE_URL, SVC_UDF_BASE_URL, SVC_TOKEN or SVC_SERVICE_TOKEN
  (a target may name other variables in svc.yaml).
`;

/** Commands that reach the platform (or the embedded emulator): their help ends with {@link PLATFORM_NOTE}. */
const REACHES_PLATFORM: readonly CommandName[] = [
  "plan",
  "apply",
  "drift",
  "test",
  "destroy",
  "rollback",
  "import",
  "forget",
  "show",
  "run",
];

export function formatHelp(): string {
  return `svc-iac: infrastructure as code for the UDF platform

Usage:
${COMMAND_NAMES.map((name) => COMMAND_USAGE[name]).join("\n")}
${PLATFORM_NOTE}
  svc-iac --help | --version | COMMAND --help

  Output: colours on a terminal; --no-color (every command that reads a repository) or NO_COLOR=1 turns them off,
  FORCE_COLOR=1 turns them on also into a pipe or a file (FORCE_COLOR=0 off).
`;
}

/** `svc-iac COMMAND --help`: that command's usage. */
export function formatCommandHelp(name: CommandName): string {
  return `Usage:\n${COMMAND_USAGE[name]}${REACHES_PLATFORM.includes(name) ? `\n${PLATFORM_NOTE}` : ""}`;
}
