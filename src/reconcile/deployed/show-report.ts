/**
 * What a target deployed, as `svc-iac show` reports it: each object of the inventory with its id,
 * where it is declared, what it refers to, its platform URLs, its non-secret outputs, its secrets
 * as present or absent, and (after a fresh read of the platform) whether it drifted. Pure: built
 * from the repository, the inventory and, unless offline, the observed states and the drift report.
 *
 * Secrets never enter the report: secret fields (the kind's `secretInputs` and `secretOutputs`,
 * and any `…Fingerprint`) are reduced to `present` / `absent`, and a URL that holds a token shows
 * a placeholder (`<share token>`) instead.
 *
 * Folder `deployed/`: the steps of `svc-iac show` and `svc-iac run` (`../commands/show.ts`,
 * `../commands/run.ts`): the report of what a target deployed, its text, a run's result table.
 * May import `src/model`, `src/kinds`, `../phases`, `../plan` (drift, references) and `../render/values`.
 */
import { KINDS } from "../../kinds/registry";
import type { DesiredKind, DesiredObject, LoadedProject } from "../../model/desired";
import { dependenciesOf } from "../plan/kind-inputs";
import { byString } from "../phases";
import { stateReferences } from "../plan";
import type { DriftClass, DriftReport } from "../plan/plan-model";
import type { Inventory } from "../../model/inventory";

export const SHOW_REPORT_VERSION = 1;

/** Whether a secret exists: `unknown` when the inventory alone cannot tell (offline). */
export type SecretPresence = "present" | "absent" | "unknown";

/** A platform URL of an object; a token in it is a placeholder, never its value. */
export interface ShownUrl {
  /** `shared URL`, `canvas page`, `OpenAPI document`. */
  name: string;
  url: string;
}

/** One deployed object. */
export interface ShownObject {
  address: string;
  kind: DesiredKind;
  id: string;
  /** `file:line` where the repository declares it; absent when it left the repository (an orphan). */
  declared?: string;
  /** Addresses it refers to. */
  references: string[];
  urls: ShownUrl[];
  /** Non-secret outputs: short scalar values of its state (fresh read) or of what the inventory keeps (offline). */
  outputs: Record<string, string | number | boolean | null>;
  secrets: Record<string, SecretPresence>;
  created_at: string;
  applied_at: string;
  rotated_at?: string;
  /**
   * After a fresh read: `in sync`, or the drift class (`changed`, `missing`, `orphaned`);
   * offline: `not read`.
   */
  status: "in sync" | "not read" | Extract<DriftClass, "changed" | "missing" | "orphaned">;
  /** The fields that drifted (status `changed`). */
  changed_fields?: string[];
}

export interface ShowReport {
  version: typeof SHOW_REPORT_VERSION;
  project: string;
  target: string;
  /** `platform`: a fresh read (default); `inventory`: `--offline`. */
  read: "platform" | "inventory";
  /** Whether anything drifted; null offline (nothing was read). */
  drift: boolean | null;
  objects: ShownObject[];
  /** Declared, never applied (not in the inventory). */
  pending: string[];
  /** On the platform where the project manages objects, declared nowhere (fresh read only). */
  unmanaged: string[];
}

export interface ShowInput {
  project: LoadedProject;
  inventory: Inventory | undefined;
  /** Address patterns (`*` any text); empty: everything. */
  only: string[];
  /** The shared-UDF host; absent: URLs start with `{udf_base_url}`. */
  udfBaseUrl?: string;
  /** A fresh read: the observed state of each inventory address (absent: gone) and the drift report. */
  fresh?: { states: Map<string, Record<string, unknown>>; drift: DriftReport };
}

/** Placeholders that stand for tokens inside URLs. */
export const SHARE_TOKEN = "<share token>";
export const SHARED_TOKEN = "<shared token>";

/** Longest output value shown; longer strings (code, documents) are left out. */
const MAX_OUTPUT = 200;

export const patternOf = (p: string) =>
  new RegExp(
    `^${p
      .split("*")
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );

/** The secret fields of a kind, by the name shown (`passcode` for `passcode` and `passcodeFingerprint`). */
function secretFields(kind: DesiredKind): string[] {
  const k = KINDS[kind]!;
  return [...new Set([...k.secretInputs, ...k.secretOutputs].map((f) => f.replace(/Fingerprint$/, "")))].sort(byString);
}

const isSecretKey = (kind: DesiredKind, key: string) =>
  /fingerprint$/i.test(key) || secretFields(kind).includes(key.replace(/Fingerprint$/, ""));

/** Short scalar values, secret fields left out. */
function outputsOf(kind: DesiredKind, values: Record<string, unknown>): ShownObject["outputs"] {
  const out: ShownObject["outputs"] = {};
  for (const key of Object.keys(values).sort(byString)) {
    const v = values[key];
    if (key === "id" || isSecretKey(kind, key)) continue;
    if (
      typeof v === "string"
        ? v.length <= MAX_OUTPUT && !/[\r\n]/.test(v)
        : typeof v === "number" || typeof v === "boolean" || v === null
    )
      out[key] = v as string | number | boolean | null;
  }
  return out;
}

/**
 * Each secret field as present or absent in a state (fresh), or from the fingerprints the inventory
 * keeps (offline). A token the platform shows only in its create answer (a service account's, a
 * UDF's own shared token) is present when the inventory records that one was minted.
 */
function secretsOf(
  kind: DesiredKind,
  state: Record<string, unknown> | undefined,
  kept: Record<string, unknown>,
  minted: boolean,
): ShownObject["secrets"] {
  const out: ShownObject["secrets"] = {};
  const createdWith = (f: string) => (f === "sharedToken" ? kept.createSharedToken === true : f === "token" && minted);
  for (const f of secretFields(kind)) {
    if (state) {
      const v = state[f] ?? state[`${f}Fingerprint`];
      out[f] = (v !== undefined && v !== null && v !== "") || createdWith(f) ? "present" : "absent";
    } else if (createdWith(f)) {
      out[f] = "present";
    } else {
      const stem = f.toLowerCase();
      const print = Object.keys(kept).some(
        (k) => /fingerprint$/i.test(k) && stem.includes(k.replace(/Fingerprint$/i, "").toLowerCase()),
      );
      out[f] =
        print || (f === "sharedToken" && kept.createSharedToken === true)
          ? "present"
          : f === "sharedToken" && kept.createSharedToken === false
            ? "absent"
            : "unknown";
    }
  }
  return out;
}

/** The canvas name of `share.<canvas>` / `udf.<canvas>/<slug>` addresses. */
const canvasOfAddress = (address: string) => {
  const m = /^(?:share\.([^/]+)$|udf\.([^/]+)\/)/.exec(address);
  return m?.[1] ?? m?.[2];
};

/**
 * URLs of the shared-UDF host: a shared canvas's page and OpenAPI document, each of its UDFs, and
 * a UDF's own shared URL. Tokens are placeholders; a URL is listed only when its token exists.
 */
function urlsOf(
  o: Omit<ShownObject, "urls">,
  shares: Map<string, SecretPresence>,
  state: Record<string, unknown> | undefined,
  base: string,
): ShownUrl[] {
  const canvas = canvasOfAddress(o.address);
  const shared = canvas !== undefined && shares.get(canvas) === "present";
  if (o.kind === "CanvasShare" && shared) {
    return [
      { name: "canvas page", url: `${base}/${SHARE_TOKEN}.api` },
      { name: "OpenAPI document", url: `${base}/${SHARE_TOKEN}.api.json` },
    ];
  }
  if (o.kind === "Udf" && o.address.startsWith("udf.")) {
    const slug = typeof state?.slug === "string" ? state.slug : o.address.slice(o.address.indexOf("/") + 1);
    const urls: ShownUrl[] = [];
    if (shared) urls.push({ name: "shared URL", url: `${base}/${SHARE_TOKEN}/${encodeURIComponent(slug)}` });
    if (o.secrets.sharedToken === "present") urls.push({ name: "own shared URL", url: `${base}/${SHARED_TOKEN}` });
    return urls;
  }
  return [];
}

/** The report; `only` patterns that match nothing are returned in `unmatched`. */
export function showReport(input: ShowInput): { report: ShowReport; unmatched: string[] } {
  const { project, inventory, fresh } = input;
  const declared = new Map<string, DesiredObject>(project.objects.map((o) => [o.address, o]));
  const entries = Object.entries(inventory?.objects ?? {}).sort(([a], [b]) => byString(a, b));
  const drifted = new Map((fresh?.drift.items ?? []).map((i) => [i.address, i] as const));
  const base = input.udfBaseUrl?.replace(/\/+$/, "") ?? "{udf_base_url}";

  const objects: Omit<ShownObject, "urls">[] = [];
  const states = new Map<string, Record<string, unknown> | undefined>();
  for (const [address, e] of entries) {
    const d = declared.get(address);
    const state = fresh?.states.get(address);
    states.set(address, state);
    const item = drifted.get(address);
    const status: ShownObject["status"] = !fresh
      ? "not read"
      : !state
        ? "missing"
        : item?.class === "changed"
          ? "changed"
          : !d
            ? "orphaned"
            : "in sync";
    const references = d ? dependenciesOf(d).sort(byString) : state ? stateReferences(e.kind, state, inventory) : [];
    objects.push({
      address,
      kind: e.kind,
      id: e.id,
      ...(d ? { declared: `${d.source.file}:${d.source.line}` } : {}),
      references,
      outputs: outputsOf(e.kind, state ?? e.kept ?? {}),
      secrets: secretsOf(e.kind, state, e.kept ?? {}, !!e.rotatedAt),
      created_at: e.createdAt,
      applied_at: e.appliedAt,
      ...(e.rotatedAt ? { rotated_at: e.rotatedAt } : {}),
      status,
      ...(status === "changed" ? { changed_fields: item!.fields.map((f) => f.field).sort(byString) } : {}),
    });
  }
  const shares = new Map<string, SecretPresence>();
  for (const o of objects)
    if (o.kind === "CanvasShare") shares.set(canvasOfAddress(o.address)!, Object.values(o.secrets)[0] ?? "unknown");
  const all: ShownObject[] = objects.map((o) => ({ ...o, urls: urlsOf(o, shares, states.get(o.address), base) }));

  const patterns = input.only.map((p) => ({ p, re: patternOf(p) }));
  const selected = (a: string) => patterns.length === 0 || patterns.some(({ re }) => re.test(a));
  const recorded = new Set(entries.map(([a]) => a));
  const pending = project.objects
    .map((o) => o.address)
    .filter((a) => !recorded.has(a) && selected(a))
    .sort(byString);
  const unmanaged = (fresh?.drift.items ?? [])
    .filter((i) => i.class === "unmanaged" && selected(i.address))
    .map((i) => i.address);
  const shown = all.filter((o) => selected(o.address));
  const unmatched = patterns
    .filter(({ re }) => ![...recorded, ...declared.keys()].some((a) => re.test(a)))
    .map(({ p }) => p);
  const drift = fresh ? shown.some((o) => o.status !== "in sync") || pending.length > 0 || unmanaged.length > 0 : null;
  return {
    report: {
      version: SHOW_REPORT_VERSION,
      project: project.project,
      target: project.target,
      read: fresh ? "platform" : "inventory",
      drift,
      objects: shown,
      pending,
      unmanaged,
    },
    unmatched,
  };
}
