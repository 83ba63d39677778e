/**
 * `svc-iac import`: reads the platform, writes the repository files, and binds what it wrote into
 * the target's inventory, so the next plan finds every object managed and unchanged. Nothing is
 * written when any file would be overwritten (unless `force`) or an address is already bound to
 * another object; `dryRun` writes nothing at all.
 */
import { errorCodeOf } from "../../errors";
import { recordImport } from "../history/recorder";
import { basename, join, resolve } from "node:path";
import { otherClaimsOf } from "../projects/project-claims";
import { connect } from "./connect";
import { loadProjectSettings, loadRepository } from "../load";
import { DEFAULT_SETTINGS, DEFAULT_TARGET, SVC_FILE, stateLocation } from "../load/svc-file";
import { PATTERNS } from "../load/keys";
import type { LoadedProject, LoadError } from "../../model/desired";
import { defaultLockOwner } from "../state/lock-file";
import { openStateBackend } from "../state/open-backend";
import { INVENTORY_VERSION, type Inventory } from "../../model/inventory";
import type { StateBackend } from "../state/types";
import type { Binding, ImportDraft } from "../import/draft";
import { closest } from "../../repository/diagnostics";
import { readPlatform, type ImportSelection } from "../import/platform-snapshot";
import { draftRepository, type ImportLayout } from "../import/repository-draft";
import { yamlText } from "../import/yaml-text";
import { readMaybe, writeInside } from "../import/read-maybe";
import { gitignoreWithState } from "../init/starter-repository";

const GITIGNORE = ".gitignore";

export interface ImportOptions {
  /** Repository folder; created when missing. @default "." */
  dir: string;
  /** @default "default" */
  target?: string;
  env: Record<string, string | undefined>;
  select: ImportSelection;
  /** The layout canvases are written in. @default "svc-iac" */
  layout?: ImportLayout;
  /** List what would be written and bound; write nothing. */
  dryRun?: boolean;
  /** Overwrite files that exist with other content, and rebind addresses bound to other objects. */
  force?: boolean;
  /** The project name written to a new svc.yaml. @default the folder's name, made a valid project name */
  project?: string;
  lockOwner?: string;
  now?: () => Date;
  log?: (line: string) => void;
}

export type FileStatus = "create" | "update" | "unchanged";

export interface ImportReport {
  version: 1;
  project: string;
  target: string;
  dryRun: boolean;
  /** True when files with other content (or addresses bound to other objects) stopped it: nothing was written or bound. */
  refused: boolean;
  /** Where the inventory lives. */
  state: string;
  files: { path: string; status: FileStatus }[];
  bound: { address: string; kind: string; id: string }[];
  skipped: ImportDraft["skipped"];
  notes: string[];
  envVars: ImportDraft["envVars"];
}

export interface ImportResult {
  command: "import";
  exitCode: 0 | 1;
  errors: LoadError[];
  report?: ImportReport;
  message?: string;
  /** The stable code of the error that stopped the command (`src/errors.ts`). */
  code?: string;
}

const LOCK_TTL_MS = 10 * 60_000;

/** A project name from a folder name: lowercase, other characters as "-". */
function projectNameOf(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "");
  return name || "project";
}

/** The project from svc.yaml, or a new svc.yaml (added to the files) when the folder has none. */
async function projectFor(
  opts: ImportOptions,
): Promise<
  { ok: true; project: LoadedProject; svcFile?: string } | { ok: false; errors: LoadError[]; message?: string }
> {
  const root = resolve(opts.dir);
  const target = opts.target ?? DEFAULT_TARGET;
  if ((await readMaybe(root, SVC_FILE)) !== undefined) {
    if (opts.project)
      return {
        ok: false,
        errors: [],
        message: `--project is only for a new repository: ${join(opts.dir, SVC_FILE)} exists and names the project.`,
      };
    const loaded = await loadProjectSettings(root, { target, env: opts.env });
    const names = loaded.ok ? loaded.project.settings.names : undefined;
    if (names) {
      // The files are every target's: written with this target's platform names, the affix would be applied twice.
      const affix = [names.prefix && `name_prefix "${names.prefix}"`, names.suffix && `name_suffix "${names.suffix}"`]
        .filter(Boolean)
        .join(" and ");
      return {
        ok: false,
        errors: [],
        message: `Target "${target}" sets ${affix}, so its platform names are not the repository's. Import into a target without one (the files serve every target).`,
      };
    }
    return loaded;
  }
  if (target !== DEFAULT_TARGET) {
    return {
      ok: false,
      errors: [],
      message: `${join(opts.dir, SVC_FILE)} does not exist, so only the target "default" can be used; import into the default target first, then declare "${target}" under targets.`,
    };
  }
  const project = opts.project ?? projectNameOf(root);
  if (!PATTERNS.project.test(project)) {
    return {
      ok: false,
      errors: [],
      message: `Invalid --project "${project}". A project name uses lowercase letters, digits, "_" and "-", starting with a letter or digit, e.g. "listings".`,
    };
  }
  const settings = {
    ...DEFAULT_SETTINGS,
    credentials: { ...DEFAULT_SETTINGS.credentials },
    state: stateLocation(DEFAULT_SETTINGS.state, project, target),
    history: { keep: DEFAULT_SETTINGS.historyKeep },
  };
  const svcFile = yamlText({ project }, [
    "The project, created by svc-iac import. Add variables, settings and targets here (see the README).",
  ]);
  return { ok: true, project: { root, project, target, settings, objects: [], secretEnvNames: [] }, svcFile };
}

async function fileStatuses(root: string, draft: ImportDraft): Promise<{ path: string; status: FileStatus }[]> {
  return Promise.all(
    draft.files.map(async (f) => {
      const current = await readMaybe(root, f.path);
      return {
        path: f.path,
        status: current === undefined ? "create" : current === f.text ? "unchanged" : "update",
      } as const;
    }),
  );
}

/** Addresses the inventory already binds to another object. */
function rebinding(inventory: Inventory | undefined, bindings: Binding[]): string[] {
  return bindings
    .filter((b) => {
      const e = inventory?.objects[b.address];
      return e && (e.id !== b.id || e.kind !== b.kind);
    })
    .map(
      (b) => `${b.address} (the inventory has id ${inventory!.objects[b.address]!.id}, the platform object is ${b.id})`,
    );
}

async function bind(
  backend: StateBackend,
  inventory: Inventory | undefined,
  project: LoadedProject,
  bindings: Binding[],
  now: Date,
): Promise<void> {
  const at = now.toISOString();
  const next: Inventory = inventory
    ? structuredClone(inventory)
    : { version: INVENTORY_VERSION, project: project.project, target: project.target, updatedAt: at, objects: {} };
  for (const b of bindings) {
    // A forgotten object bound again is managed again.
    for (const [address, f] of Object.entries(next.forgotten ?? {}))
      if (f.kind === b.kind && f.id === b.id) delete next.forgotten![address];
    const old = next.objects[b.address];
    next.objects[b.address] = {
      kind: b.kind,
      id: b.id,
      key: b.key,
      createdAt: old && old.id === b.id ? old.createdAt : at,
      appliedAt: at,
      ...(b.kept && Object.keys(b.kept).length ? { kept: b.kept } : {}),
    };
  }
  next.updatedAt = at;
  await backend.writeInventory(next);
}

/**
 * With --force, what an overwritten YAML file keeps, and what it loses said: its leading comments
 * (the editor's schema line, notes) stay on top of the new text; its `${var.…}` and `${env.…}`
 * references cannot be kept (the file is written from the platform's values), so each file that
 * loses some is named with them, as a note of the report. Changes `draft` in place.
 */
async function keepWhatForceCan(root: string, draft: ImportDraft): Promise<string[]> {
  const notes: string[] = [];
  for (const f of draft.files) {
    if (!f.path.endsWith(".yaml")) continue;
    const old = await readMaybe(root, f.path);
    if (old === undefined || old === f.text) continue;
    const header = /^(?:#[^\n]*\n)+/.exec(old)?.[0] ?? "";
    if (header && !f.text.startsWith(header)) f.text = `${header}${f.text.replace(/^(?:#[^\n]*\n)+/, "")}`;
    const refs = [...new Set(old.match(/(?<!\$)\$\{(?:var|env)\.[A-Za-z0-9_]+\}/g) ?? [])].filter(
      (r) => !f.text.includes(r),
    );
    if (refs.length)
      notes.push(
        `${f.path}: rewritten from the platform's values, so its ${refs.join(", ")} ${refs.length > 1 ? "are" : "is"} replaced by ${refs.length > 1 ? "their" : "its"} value; put ${refs.length > 1 ? "them" : "it"} back by hand (svc-iac import --keep ADDRESS writes only the fields that drifted, keeping references)`,
      );
  }
  return notes;
}

/**
 * The draft cut down to the objects `addresses` name: their files and bindings only (a UDF's code,
 * settings and helper modules; a cronjob's file), so what else the repository holds, its canvas.yaml
 * with its comments and `${var.…}` references included, is left as it is.
 */
function onlyObjects(draft: ImportDraft, addresses: readonly string[]): ImportDraft | { message: string } {
  const wanted = new Set(addresses);
  const missing = addresses.filter((a) => !draft.bindings.some((b) => b.address === a));
  if (missing.length) {
    const lines = missing.map((a) => {
      const kind = a.slice(0, a.indexOf(".") + 1);
      const near = closest(
        a,
        draft.bindings.filter((b) => b.address.startsWith(kind)).map((b) => b.address),
      );
      return `${a}: no such object on the platform that the repository format can hold${near ? `; did you mean ${near}?` : ""}`;
    });
    return { message: [...lines, "Nothing was written or bound."].join("\n") };
  }
  return {
    ...draft,
    files: draft.files.filter((f) => f.owners?.some((o) => wanted.has(o))),
    bindings: draft.bindings.filter((b) => wanted.has(b.address)),
    skipped: [],
    notes: draft.notes.filter((n) => addresses.some((a) => n.startsWith(`${a}:`))),
  };
}

export async function importCommand(opts: ImportOptions): Promise<ImportResult> {
  const found = await projectFor(opts);
  if (!found.ok)
    return {
      command: "import",
      exitCode: 1,
      errors: found.errors,
      ...(found.message ? { message: found.message } : {}),
    };
  const { project } = found;
  // Another folder of the repository with this name shares its state: importing here would bind into its inventory.
  const claimed = await otherClaimsOf(project.root, project.project);
  if (claimed.length) return { command: "import", exitCode: 1, errors: claimed };
  const now = opts.now ?? (() => new Date());
  let connection: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    connection = await connect(project, opts.env, { log: opts.log });
    const backend = openStateBackend(project.settings.state, {
      root: project.root,
      client: connection.client,
      project: project.project,
      target: project.target,
    });
    const snapshot = await readPlatform(connection.client, opts.select);
    if (snapshot.missingCanvases.length) {
      const have = snapshot.canvasNames.length
        ? `the team's canvases are ${snapshot.canvasNames.join(", ")}`
        : "the team has no canvases";
      return {
        command: "import",
        exitCode: 1,
        errors: [],
        message: `No canvas named ${snapshot.missingCanvases.map((n) => JSON.stringify(n)).join(", ")} on the platform (${have}). Nothing was written.`,
      };
    }
    // A dry run writes nothing, so it makes no key (the bindings it shows keep no fingerprint that is printed).
    const full = draftRepository(
      snapshot,
      opts.select,
      await backend.fingerprintKey({ create: !opts.dryRun }),
      opts.layout,
    );
    const single = opts.select.addresses ? onlyObjects(full, opts.select.addresses) : undefined;
    if (single && "message" in single) return { command: "import", exitCode: 1, errors: [], message: single.message };
    const draft = single ?? full;
    if (found.svcFile) draft.files.unshift({ path: SVC_FILE, text: found.svcFile });
    // As init: the state folder (the fingerprint key, the inventory, the embedded emulator's data)
    // is kept out of git, so `git add -A` after an import commits none of it.
    const ignored = gitignoreWithState((await readMaybe(project.root, GITIGNORE)) ?? "");
    if (ignored !== undefined) draft.files.push({ path: GITIGNORE, text: ignored });
    if (opts.force) draft.notes.push(...(await keepWhatForceCan(project.root, draft)));
    const files = await fileStatuses(project.root, draft);
    const inventory = await backend.readInventory();
    const report: ImportReport = {
      version: 1,
      project: project.project,
      target: project.target,
      dryRun: !!opts.dryRun,
      refused: false,
      state: backend.location,
      files,
      bound: draft.bindings.map((b) => ({ address: b.address, kind: b.kind, id: b.id })),
      skipped: draft.skipped,
      notes: draft.notes,
      envVars: draft.envVars,
    };
    // Files declaring an address that removed: lists would not validate (and --force cannot help).
    const unremoved = (project.removed ?? []).filter((r) => draft.bindings.some((b) => b.address === r.address));
    if (unremoved.length) {
      const lines = [
        ...unremoved.map(
          (r) =>
            `${r.source.file}:${r.source.line}:${r.source.column}: removed: lists ${r.address}, which this import would declare and bind again; the repository would not validate.`,
        ),
        `Take ${unremoved.length > 1 ? "those lines" : "that line"} out of removed: in ${SVC_FILE}, then import again. Nothing was written or bound.`,
      ];
      return {
        command: "import",
        exitCode: 1,
        errors: [],
        report: { ...report, refused: true },
        message: lines.join("\n"),
      };
    }
    // .gitignore is only extended (its lines kept): not an overwrite.
    const overwrites = files.filter((f) => f.status === "update" && f.path !== GITIGNORE).map((f) => f.path);
    const rebinds = rebinding(inventory, draft.bindings);
    if (!opts.force && (overwrites.length || rebinds.length)) {
      const lines = [
        ...(overwrites.length ? [`These files exist with other content: ${overwrites.join(", ")}.`] : []),
        ...(rebinds.length
          ? [
              `These addresses are bound to other objects in the inventory (${backend.location}): ${rebinds.join("; ")}.`,
            ]
          : []),
        opts.dryRun
          ? "This dry run wrote nothing; an import would refuse the same way. Run it with --force to overwrite them."
          : "Nothing was written or bound. Run again with --force to overwrite them, or --dry-run to see every file.",
      ];
      return {
        command: "import",
        exitCode: 1,
        errors: [],
        report: { ...report, refused: true },
        message: lines.join("\n"),
      };
    }
    if (opts.dryRun) return { command: "import", exitCode: 0, errors: [], report };
    const lock = await backend.acquireLock({
      owner: opts.lockOwner ?? defaultLockOwner(),
      operation: "import",
      ttlMs: LOCK_TTL_MS,
      now,
    });
    try {
      for (const f of draft.files) {
        if (files.find((s) => s.path === f.path)!.status === "unchanged") continue;
        writeInside(project.root, f.path, f.text);
      }
      await bind(backend, await backend.readInventory(), project, draft.bindings, now());
      // The history records what the files now declare for each object bound.
      const written = await loadRepository(project.root, {
        target: project.target,
        env: { ...opts.env, SVC_PYTHON: "" },
      });
      if (written.ok)
        await recordImport({
          backend,
          project: written.project,
          bound: draft.bindings,
          now: now(),
          env: opts.env,
        }).catch((e: unknown) =>
          opts.log?.(`The deployment history in ${backend.location} was not written: ${(e as Error)?.message ?? e}`),
        );
    } finally {
      await lock.release();
    }
    return { command: "import", exitCode: 0, errors: [], report };
  } catch (e) {
    return {
      command: "import",
      exitCode: 1,
      errors: [],
      message: e instanceof Error ? e.message : String(e),
      code: errorCodeOf(e),
    };
  } finally {
    await connection?.close();
  }
}
