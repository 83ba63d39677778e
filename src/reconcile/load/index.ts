/**
 * Loads a GitOps repository into the desired objects of one project and target:
 * svc.yaml, then canvases and UDFs, cronjobs, secrets, service accounts and bucket policies,
 * then checks across files. Every error of the run is returned together, each with
 * `file:line:column`; with any error there is no project.
 *
 * Folder `load/`: the first step, a repository's files read into desired objects (files, keys,
 * fields, variables, diagnostics, moved blocks, name affixes) and the repository's digest. May import
 * `src/model`, `src/kinds`, `../phases` and `../checked-inputs` (the kinds' checks, kept for
 * the plan); nothing of the later steps.
 */
import { resolve } from "node:path";
import type { DesiredKind, LoadedProject, LoadResult, UdfTest } from "../../model/desired";
import { readBucketPolicies, readSecrets, readServiceAccounts } from "./account-files";
import { CANVASES, readCanvaslessUdfs, readCanvases, type CanvasExtras } from "./canvas-files";
import { readPlatformLayout } from "./platform-layout";
import { checkCredentialReferences } from "./credential-references";
import { readCronjobs } from "./cronjob-files";
import { sortByAddress } from "./desired";
import { Diagnostics } from "../../repository/diagnostics";
import { RepositoryJail } from "../../repository/jail";
import { checkMoved } from "./moved";
import { checkRemoved } from "./removed";
import { applyNameAffixes } from "./name-affixes";
import { PythonCheck } from "./python-check";
import { DEFAULT_TARGET, readSvcFile } from "./svc-file";
import { checkReferences, checkUniqueAddresses, checkWithKinds, scrubSecrets } from "./validate";
import { Resolver } from "../../repository/variables";

export interface LoadOptions {
  /** The target whose variables and settings apply. @default "default" */
  target?: string;
  /** The environment `${env.NAME}` reads from (secrets included), and `SVC_PYTHON`. @default {} (pass `process.env` explicitly) */
  env?: Record<string, string | undefined>;
  /** Where a warning goes (no Python interpreter for the Python check); without it, the project's warnings. */
  log?: (line: string) => void;
  /**
   * Called once svc.yaml has been read without error, before the other files are: with the
   * project's settings and the kinds the repository plainly declares so far (the canvas kinds when
   * `canvases/` holds a folder). A command may connect and start reading the platform then; the
   * loader lets that work run between its reads. The load may still fail afterwards.
   */
  onSettings?: (early: ProjectSettingsOnly, declares: DesiredKind[]) => void;
}

/** What svc.yaml alone tells of a project: no objects yet. */
export type ProjectSettingsOnly = Pick<LoadedProject, "root" | "project" | "target" | "settings">;

/**
 * Reads and validates the repository at `dir`.
 * @example
 * const r = await loadRepository("examples/repo", { target: "staging", env: process.env });
 * if (!r.ok) for (const e of r.errors) console.error(formatLoadError(e));
 */
export async function loadRepository(dir: string, opts: LoadOptions = {}): Promise<LoadResult> {
  return (await loadRepositoryStaged(dir, opts)).checked;
}

/**
 * A load whose Python check (a child process: seconds for 100,000 files) is still running.
 * `unchecked` is the result without it (a failure there is final: `checked` then adds the Python
 * check's errors, so every error is reported together); `checked` is what {@link loadRepository}
 * gives. A command may connect and read the platform meanwhile, and must await `checked` before
 * it writes anything or shows a plan.
 */
export interface StagedLoad {
  unchecked: LoadResult;
  checked: Promise<LoadResult>;
}

/** {@link loadRepository}, with its Python check left running (see {@link StagedLoad}). */
export async function loadRepositoryStaged(dir: string, opts: LoadOptions = {}): Promise<StagedLoad> {
  const root = resolve(dir);
  const jail = RepositoryJail.forProject(root);
  const target = opts.target ?? DEFAULT_TARGET;
  const env = opts.env ?? {};
  const diag = new Diagnostics();
  const vars = new Resolver({ variables: undefined, env, target: `target "${target}"`, allowVariables: false });

  // Python parses the .py files as they are read (its interpreter is looked up meanwhile).
  const python = new PythonCheck(env, root);
  let read: Awaited<ReturnType<typeof readObjects>>;
  try {
    read = await readObjects(jail, { root, target, vars, diag, python, onSettings: opts.onSettings });
  } catch (e) {
    python.abandon();
    throw e;
  }
  const { svc, extras, cronjobs, loaded } = read;
  // Its input ends before the checks below, which run while Python finishes.
  const pythonChecked = python.finish();
  const credentialsReferenced = checkCredentialReferences(vars, svc?.settings.credentials, diag);
  checkReferences(loaded, cronjobs.references, diag);
  checkUniqueAddresses(loaded, diag);
  checkWithKinds(loaded, diag, vars.unresolvedIn);
  if (svc) checkMoved(svc.moved, loaded, diag);
  if (svc) checkRemoved(svc.removed, loaded, diag);
  // After the kinds' checks, so a name invalid by itself is reported once, at its own file.
  const affixed = applyNameAffixes(loaded, svc?.names, target, diag);
  const { objects } = affixed;
  const warnings = [...affixed.warnings, ...uncheckedWarning(extras.unchecked ?? [])];
  const secretEnvNames = [...vars.secretEnvNames].sort();
  const failed = (): LoadResult => ({
    ok: false,
    errors: sortErrors(scrubSecrets(diag.errors, [...secretEnvNames, ...credentialsReferenced], env)),
  });
  const projectOf = (more: string[]): LoadResult => ({
    ok: true,
    project: {
      root,
      project: svc!.project,
      target,
      settings: svc!.settings,
      objects,
      secretEnvNames,
      moved: svc!.moved,
      removed: svc!.removed,
      targets: svc!.targets,
      tests: sortTests(extras.tests),
      ...(more.length ? { warnings: more } : {}),
    },
  });
  const unchecked = diag.count || !svc ? failed() : projectOf(warnings);
  const checked = pythonChecked.then((r) => {
    for (const e of r.errors) diag.add(e);
    if (r.warning && opts.log) opts.log(`Warning: ${r.warning}`);
    if (diag.count || !svc) return failed();
    return projectOf([...warnings, ...(r.warning && !opts.log ? [r.warning] : []), ...(r.warnings ?? [])]);
  });
  return { unchecked, checked };
}

/** Every file of the repository read into objects, svc.yaml first (then `onSettings`); Python files go to `python` as they are read. */
async function readObjects(
  jail: RepositoryJail,
  {
    root,
    target,
    vars,
    diag,
    python,
    onSettings,
  }: {
    root: string;
    target: string;
    vars: Resolver;
    diag: Diagnostics;
    python: PythonCheck;
    onSettings: LoadOptions["onSettings"];
  },
) {
  const svc = await readSvcFile(jail, target, vars, diag);
  if (svc && !diag.count && onSettings) {
    const listing = jail.listFolder(CANVASES);
    const declares: DesiredKind[] =
      listing.kind === "entries" && listing.entries.some((e) => e.isFolder) ? ["Canvas"] : [];
    onSettings({ root, project: svc.project, target, settings: svc.settings }, declares);
  }
  const skip = (svc?.checkSkip ?? []).map(
    (p) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`),
  );
  const extras: CanvasExtras = {
    tests: [],
    python,
    unchecked: [],
    skipCheck: (address) => skip.some((re) => re.test(address)),
  };
  const canvases = await readCanvases(jail, vars, diag, extras);
  // UDFs without a canvas: udfs/<slug>.py, then (below) the platform layout's meta.json outside any canvas.
  canvases.push(...(await readCanvaslessUdfs(jail, vars, diag, extras)));
  // The platform's own git layout may sit beside svc-iac's: the same objects, from collection.json and meta.json.
  canvases.push(...(await readPlatformLayout(jail, diag, extras)));
  const cronjobs = await readCronjobs(jail, vars, diag);
  const loaded = sortByAddress([
    ...canvases,
    ...cronjobs.objects,
    ...(await readSecrets(jail, vars, diag)),
    ...(await readServiceAccounts(jail, vars, diag)),
    ...(await readBucketPolicies(jail, vars, diag, svc?.settings.state)),
  ]);
  return { svc, extras, cronjobs, loaded };
}

/** Records shown unchecked in plans: at most this many by address. */
const UNCHECKED_LISTED = 10;

/** The plan's line about records deployed without their check, if any. */
function uncheckedWarning(addresses: string[]): string[] {
  if (!addresses.length) return [];
  const sorted = [...addresses].sort();
  const more = sorted.length - UNCHECKED_LISTED;
  return [
    `Not checked (check: false, or checks.skip in svc.yaml): ${sorted.slice(0, UNCHECKED_LISTED).join(", ")}${more > 0 ? ` and ${more} more` : ""}.`,
  ];
}

/** By UDF address, then as listed. */
function sortTests(tests: UdfTest[]): UdfTest[] {
  return [...tests].sort((a, b) =>
    a.address < b.address ? -1 : a.address > b.address ? 1 : a.source.line - b.source.line,
  );
}

/** By file, then position: the order an editor lists them in. */
function sortErrors<T extends { file: string; line: number; column: number }>(errors: T[]): T[] {
  return [...errors].sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column,
  );
}

/**
 * Reads only `svc.yaml` for `target`: the project, its settings and credentials, and `removed:`; no objects.
 * What commands need that act on the inventory or the platform rather than on the repository's
 * declarations (import, destroy), so they do not need the repository's secrets in the environment.
 */
export async function loadProjectSettings(dir: string, opts: LoadOptions = {}): Promise<LoadResult> {
  const root = resolve(dir);
  const target = opts.target ?? DEFAULT_TARGET;
  const diag = new Diagnostics();
  const vars = new Resolver({
    variables: undefined,
    env: opts.env ?? {},
    target: `target "${target}"`,
    allowVariables: false,
  });
  const svc = await readSvcFile(RepositoryJail.forProject(root), target, vars, diag);
  if (diag.count || !svc) return { ok: false, errors: sortErrors(diag.errors) };
  return {
    ok: true,
    project: {
      root,
      project: svc.project,
      target,
      settings: svc.settings,
      objects: [],
      secretEnvNames: [],
      removed: svc.removed,
      targets: svc.targets,
    },
  };
}
