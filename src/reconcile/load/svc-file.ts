/**
 * `svc.yaml`: the project name, variables, settings and targets. Selects the target, merges its
 * variables over the project's, and switches the resolver to them for every other file.
 */
import type { RepositoryJail } from "../../repository/jail";
import { posix } from "node:path";
import {
  DRIFT_POLICIES,
  NOTIFY_EVENTS,
  type DriftPolicySetting,
  type FlappingSettings,
  type MovedEntry,
  type NotifyEvent,
  type NotifyTarget,
  type ProjectSettings,
  type RemovedEntry,
  type StateLocation,
} from "../../model/desired";
import { readMoved } from "./moved";
import { readRemoved } from "./removed";
import { readNameAffixes, type NameAffixes } from "./name-affixes";
import { describeFound, didYouMean, quotedPath, type Diagnostics } from "../../repository/diagnostics";
import { isMap, isScalar, isSeq } from "yaml";
import { MapReader, report, rootReader, type ReadContext } from "../../repository/fields";
import {
  CHECKS_KEYS,
  CONCURRENCY_RANGE,
  CREDENTIALS_KEYS,
  DURATION_EXPECTED,
  FLAPPING_KEYS,
  HISTORY_KEEP_RANGE,
  HISTORY_KEYS,
  NOTIFY_KEYS,
  SVC_KEYS,
  TARGET_KEYS,
} from "./keys";
import { durationMs } from "../plan/rotation";
import { badTargetName, DEFAULT_TARGET, PATTERNS, PROJECT_EXPECTED, SVC_FILE } from "./names";
import { UNRESOLVED, type Resolver } from "../../repository/variables";
import { readYaml } from "../../repository/yaml-source";

export { DEFAULT_TARGET, SVC_FILE } from "./names";

export const DEFAULT_SETTINGS = {
  prune: false,
  maxDeletions: 10,
  concurrency: 8,
  state: ".svc-iac/state",
  historyKeep: 100,
  credentials: {
    baseUrlEnv: "SVC_BASE_URL",
    udfBaseUrlEnv: "SVC_UDF_BASE_URL",
    tokenEnv: "SVC_TOKEN",
    serviceTokenEnv: "SVC_SERVICE_TOKEN",
  },
} as const;

export interface SvcFile {
  project: string;
  settings: ProjectSettings;
  moved: MovedEntry[];
  removed: RemovedEntry[];
  /** Every target svc.yaml declares, `default` included, sorted. */
  targets: string[];
  /** The selected target's `name_prefix` / `name_suffix` (see name-affixes.ts). */
  names?: NameAffixes;
  /** `checks.skip`: addresses and `*` patterns of records whose check (Python, JSON) is off. */
  checkSkip: string[];
}

const CREDENTIAL_FIELDS = {
  base_url_env: "baseUrlEnv",
  udf_base_url_env: "udfBaseUrlEnv",
  token_env: "tokenEnv",
  service_token_env: "serviceTokenEnv",
} as const satisfies Record<(typeof CREDENTIALS_KEYS)[number], keyof ProjectSettings["credentials"]>;

/** Reads svc.yaml for `target`; afterwards `vars` resolves that target's variables. */
export async function readSvcFile(
  jail: RepositoryJail,
  target: string,
  vars: Resolver,
  diag: Diagnostics,
): Promise<SvcFile | undefined> {
  const src = await readYaml(jail, SVC_FILE, diag);
  if (!src) {
    // References to variables are not checked without svc.yaml: its error is the one to fix.
    vars.useVariables(undefined, `target "${target}"`);
    if (!diag.errors.some((e) => e.file === SVC_FILE)) {
      diag.atFile(
        SVC_FILE,
        `svc.yaml not found: the repository root needs an svc.yaml naming the project (e.g. "project: listings"). To start a repository here, run: svc-iac init`,
      );
    }
    return undefined;
  }
  const ctx: ReadContext = { src, diag, vars };
  const top = rootReader(ctx, SVC_KEYS);
  const project = top.string("project", { required: true, pattern: PATTERNS.project, expected: PROJECT_EXPECTED });
  const projectVariables = readVariables(ctx, top);
  const targets = readTargets(ctx, top);
  const selected = targets.get(target)?.reader;
  if (!selected && target !== DEFAULT_TARGET) {
    const known = [DEFAULT_TARGET, ...[...targets.keys()].filter((t) => t !== DEFAULT_TARGET).sort()];
    report(
      ctx,
      top.keyNode("targets"),
      "targets",
      `unknown target "${target}"; known targets: ${known.join(", ")}${didYouMean(target, known)}`,
    );
  }
  const variables = { ...projectVariables, ...(selected ? readVariables(ctx, selected) : {}) };
  vars.useVariables(variables, `target "${target}"`);

  const base = readSettings(top, jail);
  const over = selected ? readSettings(selected, jail) : {};
  const name = project ?? "project";
  const credentials = { ...DEFAULT_SETTINGS.credentials, ...readCredentials(targets.get(target)?.credentials) };
  const settings: ProjectSettings = {
    prune: over.prune ?? base.prune ?? DEFAULT_SETTINGS.prune,
    maxDeletions: over.maxDeletions ?? base.maxDeletions ?? DEFAULT_SETTINGS.maxDeletions,
    maxDeletionsFrom:
      over.maxDeletions !== undefined
        ? `max_deletions of target ${target} in svc.yaml`
        : base.maxDeletions !== undefined
          ? "max_deletions in svc.yaml"
          : "the default max_deletions; svc.yaml can set another",
    concurrency: over.concurrency ?? base.concurrency ?? DEFAULT_SETTINGS.concurrency,
    state: stateLocation(over.state ?? base.state ?? DEFAULT_SETTINGS.state, name, target),
    credentials,
    history: {
      keep: over.history?.keep ?? base.history?.keep ?? DEFAULT_SETTINGS.historyKeep,
      ...((over.history?.maxAgeMs ?? base.history?.maxAgeMs) !== undefined
        ? { maxAgeMs: over.history?.maxAgeMs ?? base.history?.maxAgeMs }
        : {}),
      // A target's own history: settings turn it back on; its false turns it off.
      ...((over.history ? over.history.off : base.history?.off) ? { off: true as const } : {}),
    },
  };
  const onDrift = over.onDrift
    ? { policy: over.onDrift, from: `on_drift of target ${target} in svc.yaml` }
    : base.onDrift
      ? { policy: base.onDrift, from: "on_drift in svc.yaml" }
      : undefined;
  if (onDrift) settings.onDrift = onDrift satisfies DriftPolicySetting;
  const flapping = readFlapping(top);
  if (flapping) settings.flapping = flapping;
  const notify = readNotify(ctx, top);
  if (notify.length) settings.notify = notify;
  const moved = readMoved(ctx, top);
  const removed = readRemoved(ctx, top);
  const checkSkip = readCheckSkip(ctx, top);
  const names = selected ? readNameAffixes(ctx, selected) : undefined;
  if (names) settings.names = { prefix: names.prefix, suffix: names.suffix };
  const declaredTargets = [...new Set([DEFAULT_TARGET, ...targets.keys()])].sort();
  return project === undefined
    ? undefined
    : { project, settings, moved, removed, targets: declaredTargets, checkSkip, ...(names ? { names } : {}) };
}

/** `checks: {skip: [udf.reports/legacy, "widget.board/*"]}`: the records whose check is off. */
function readCheckSkip(ctx: ReadContext, top: MapReader): string[] {
  if (!top.has("checks")) return [];
  const checks = top.map("checks", CHECKS_KEYS);
  const items = checks?.list("skip", 'a list of addresses or patterns, e.g. ["udf.reports/legacy", "widget.board/*"]');
  const out: string[] = [];
  for (const item of items ?? []) {
    const v = isScalar(item.node) ? item.node.value : undefined;
    if (typeof v === "string" && /^(udf|note|widget)\.\S+$/.test(v)) out.push(v);
    else
      report(
        ctx,
        item.node,
        item.path,
        `found ${typeof v === "string" ? JSON.stringify(v) : "a value that is not a string"}, expected the address of a UDF or widget, or a pattern in which "*" stands for any text (e.g. "udf.reports/legacy", "widget.board/*")`,
      );
  }
  return out;
}

function readVariables(ctx: ReadContext, m: MapReader): Record<string, unknown> {
  if (!m.has("variables")) return {};
  const reader = new MapReader(ctx, m.valueNode("variables"), m.path ? `${m.path}.variables` : "variables", "any");
  const out: Record<string, unknown> = {};
  for (const e of reader.entries()) {
    if (!PATTERNS.variable.test(e.name)) {
      report(
        ctx,
        e.keyNode,
        e.path,
        `found variable name "${e.name}", expected letters, digits and "_", starting with a letter or "_" (it is used as \${var.NAME})`,
      );
      continue;
    }
    const value = reader.value(e.name);
    // Its error is reported here; references to it elsewhere are then not reported again.
    out[e.name] = value ? value.value : UNRESOLVED;
  }
  return out;
}

/** Every declared target, its mapping checked for unknown keys (values are read for the selected one only). */
interface TargetReaders {
  reader: MapReader;
  credentials?: MapReader;
}

function readTargets(ctx: ReadContext, top: MapReader): Map<string, TargetReaders> {
  const out = new Map<string, TargetReaders>();
  if (!top.has("targets")) return out;
  const list = new MapReader(ctx, top.valueNode("targets"), "targets", "any");
  for (const e of list.entries()) {
    if (!PATTERNS.target.test(e.name)) {
      report(ctx, e.keyNode, e.path, badTargetName(e.name));
      continue;
    }
    const t = new MapReader(ctx, e.valueNode, e.path, TARGET_KEYS);
    if (!t.isMapping) continue;
    out.set(e.name, { reader: t, credentials: t.map("credentials", CREDENTIALS_KEYS) });
  }
  return out;
}

interface SettingsFields {
  onDrift?: DriftPolicySetting["policy"];
  prune?: boolean;
  maxDeletions?: number;
  concurrency?: number;
  state?: string;
  history?: { keep?: number; maxAgeMs?: number; off?: true };
}

function readSettings(m: MapReader, jail: RepositoryJail): SettingsFields {
  const state = m.string("state", {
    expected:
      'a local folder relative to the repository (e.g. ".svc-iac/state"), "s3://bucket/prefix" or "gs://bucket/prefix"',
  });
  let checkedState = state;
  if (state !== undefined && (state === "" || (state.includes("://") && !PATTERNS.remoteState.test(state)))) {
    checkedState = m.fail(
      "state",
      `found ${quotedPath(state)}, expected a local folder relative to the repository (e.g. ".svc-iac/state"), "s3://bucket/prefix" or "gs://bucket/prefix"`,
    );
  } else if (state !== undefined && !PATTERNS.remoteState.test(state)) {
    // The state is written where the repository says: only inside it, never through a link out or into .git.
    const refused = posix.isAbsolute(state.replace(/\\/g, "/"))
      ? `${state} is an absolute path`
      : jail.writeRefusal(posix.join(state.replace(/\\/g, "/"), "inventory.json"));
    if (refused)
      checkedState = m.fail(
        "state",
        `found ${quotedPath(state)}, expected a folder inside the repository, outside .git/: ${refused}`,
      );
  }
  return {
    onDrift: m.oneOf("on_drift", DRIFT_POLICIES),
    prune: m.boolean("prune"),
    maxDeletions: m.integer("max_deletions", 0),
    concurrency: m.integer("concurrency", CONCURRENCY_RANGE.min, CONCURRENCY_RANGE.max),
    state: checkedState,
    history: readHistorySettings(m),
  };
}

/** `history: {keep: N, max_age: 90d}`: how many deployments the history keeps, and for how long. */
function readHistorySettings(m: MapReader): SettingsFields["history"] {
  // `history: false`: no history for the project (or this target).
  if (m.value("history")?.value === false) return { off: true };
  const h = m.map("history", HISTORY_KEYS);
  if (!h) return undefined;
  const keep = h.integer("keep", HISTORY_KEEP_RANGE.min, HISTORY_KEEP_RANGE.max);
  const maxAge = h.string("max_age", {
    pattern: PATTERNS.duration,
    expected: 'a duration: a whole number followed by m, h, d or w, e.g. "90d"',
  });
  return {
    ...(keep !== undefined ? { keep } : {}),
    ...(maxAge !== undefined ? { maxAgeMs: durationMs(maxAge) } : {}),
  };
}

/** The most restores a `flapping:` may allow (a larger number would never stop anything). */
const MAX_FLAPPING_RESTORES = 1000;

/** `flapping: {restores: 3, within: 7d}`: both optional, each defaulting to those values. */
function readFlapping(top: MapReader): FlappingSettings | undefined {
  const f = top.map("flapping", FLAPPING_KEYS);
  if (!f) return undefined;
  return {
    restores: f.integer("restores", 1, MAX_FLAPPING_RESTORES) ?? DEFAULT_FLAPPING.restores,
    within: f.string("within", { pattern: PATTERNS.duration, expected: DURATION_EXPECTED }) ?? DEFAULT_FLAPPING.within,
  };
}

export const DEFAULT_FLAPPING: FlappingSettings = { restores: 3, within: "7d" };

/** `notify:`: webhooks, each `{name, url_env, events}`; the URL only ever comes from the environment. */
function readNotify(ctx: ReadContext, top: MapReader): NotifyTarget[] {
  const items = top.list(
    "notify",
    "a list of webhooks: [{name: chat, url_env: CHAT_WEBHOOK_URL, events: [drift_found]}]",
  );
  const out: NotifyTarget[] = [];
  const seen = new Set<string>();
  for (const item of items ?? []) {
    const m = new MapReader(ctx, item.node, item.path, NOTIFY_KEYS);
    if (!m.isMapping) {
      report(ctx, item.node, item.path, "found a value that is not a mapping, expected {name, url_env, events}");
      continue;
    }
    const name = m.string("name", {
      required: true,
      pattern: /^[A-Za-z0-9_.-]{1,64}$/,
      expected: 'a name of letters, digits, "_", "." and "-", e.g. "chat"',
    });
    const urlEnv = m.string("url_env", {
      required: true,
      pattern: PATTERNS.envName,
      expected:
        'the name of the environment variable holding the webhook URL, e.g. "CHAT_WEBHOOK_URL" (the URL itself is never written in the repository)',
    });
    const listed = m.list(
      "events",
      `a list of events, e.g. [drift_found, apply_failed]; one of ${NOTIFY_EVENTS.join(", ")}`,
    );
    if (!m.has("events"))
      m.fail("events", `required key "events" is missing; expected a list of ${NOTIFY_EVENTS.join(", ")}`);
    const events: NotifyEvent[] = [];
    for (const e of listed ?? []) {
      const v = isScalar(e.node) ? e.node.value : isMap(e.node) ? {} : isSeq(e.node) ? [] : null;
      if (typeof v !== "string" || !NOTIFY_EVENTS.includes(v as NotifyEvent)) {
        report(
          ctx,
          e.node,
          e.path,
          `found ${describeFound(v)}, expected one of ${NOTIFY_EVENTS.join(", ")}${typeof v === "string" ? didYouMean(v, NOTIFY_EVENTS) : ""}`,
        );
        continue;
      }
      if (!events.includes(v as NotifyEvent)) events.push(v as NotifyEvent);
    }
    if (name !== undefined && seen.has(name)) {
      m.fail("name", `found the name "${name}" twice in notify; each webhook needs its own name`);
      continue;
    }
    if (name !== undefined) seen.add(name);
    if (name !== undefined && urlEnv !== undefined && events.length) out.push({ name, urlEnv, events });
  }
  return out;
}

/** What the names of the variables holding the platform's URLs must end in. */
const URL_ENV_SUFFIXES = { base_url_env: "SVC_BASE_URL", udf_base_url_env: "SVC_UDF_BASE_URL" } as const;

function readCredentials(c: MapReader | undefined): Partial<ProjectSettings["credentials"]> {
  if (!c) return {};
  const out: Partial<ProjectSettings["credentials"]> = {};
  for (const key of CREDENTIALS_KEYS) {
    const url = URL_ENV_SUFFIXES[key as keyof typeof URL_ENV_SUFFIXES];
    // The token goes to the URL these name: a pull request may not point them at any variable (a
    // PR_TITLE the workflow sets, ACTIONS_RESULTS_URL), only at one the workflow named for svc-iac.
    const v = url
      ? c.string(key, {
          pattern: new RegExp(`^(?:[A-Za-z_][A-Za-z0-9_]*_)?${url}$`),
          expected: `the name of an environment variable ending in ${url}, e.g. "STAGING_${url}": the platform token is sent to the URL it holds, so only variables named for svc-iac may hold it`,
        })
      : c.string(key, {
          pattern: PATTERNS.envName,
          expected: 'the name of an environment variable, e.g. "STAGING_SVC_TOKEN"',
        });
    if (v !== undefined) out[CREDENTIAL_FIELDS[key]] = v;
  }
  return out;
}

/** The inventory's place: the configured folder or URL, then `<project>/<target>` so targets never share one. */
export function stateLocation(state: string, project: string, target: string): StateLocation {
  if (PATTERNS.remoteState.test(state))
    return { kind: "remote", url: `${state.replace(/\/+$/, "")}/${project}/${target}` };
  const folder = state.replace(/\\/g, "/");
  return { kind: "local", path: posix.normalize(posix.join(folder, project, target)) };
}
