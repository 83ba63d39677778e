/**
 * The generic part of every kind's diff: compare field by field, classify each change as update
 * or replace, fingerprint secrets. Kinds add their own rules on top.
 */
import equal from "fast-deep-equal";
import type { DiffResult, FieldChange } from "./kind";
import { fingerprint, type FingerprintKey } from "./fingerprint";

export interface FieldRules {
  /** Fields that replace the object when they change. */
  replaceOn?: readonly string[];
  /** Secret input fields: compared by fingerprint (`<field>Fingerprint` in the old state). */
  secret?: readonly string[];
  /** Salt for secret fingerprints: the kind, so a rename does not look like a new secret. */
  salt?: string;
  /** The project's fingerprint key; the olds' fingerprints must be under the same key (or both key-less). */
  key?: FingerprintKey;
  /** Fields that are never compared (outputs, derived values). */
  ignore?: readonly string[];
}

/** Compares `olds` (kept state) and `news` (desired inputs) over the fields of `news`. */
export function diffFields(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  rules: FieldRules,
): DiffResult {
  const fields: FieldChange[] = [];
  const stables: string[] = [];
  const keys = Object.keys(news)
    .filter((k) => !rules.ignore?.includes(k))
    .sort();
  for (const field of keys) {
    const action = rules.replaceOn?.includes(field) ? "replace" : "update";
    if (rules.secret?.includes(field)) {
      const newValue = news[field];
      const oldPrint = olds[`${field}Fingerprint`] as string | undefined;
      const newPrint =
        typeof newValue === "string" ? fingerprint(newValue, `${rules.salt ?? ""}:${field}`, rules.key) : undefined;
      if (oldPrint === newPrint) stables.push(field);
      else fields.push({ field, action, secret: true, fromFingerprint: oldPrint, toFingerprint: newPrint });
      continue;
    }
    if (equal(olds[field] ?? null, news[field] ?? null)) stables.push(field);
    else fields.push({ field, action, secret: false, from: olds[field], to: news[field] });
  }
  return summarize(fields, stables);
}

/** Builds a DiffResult from field changes. */
export function summarize(fields: FieldChange[], stables: string[], deleteBeforeReplace = false): DiffResult {
  const replaces = fields.filter((f) => f.action === "replace").map((f) => f.field);
  return {
    changes: fields.length > 0,
    replaces,
    stables: stables.filter((s) => !fields.some((f) => f.field === s)),
    deleteBeforeReplace: replaces.length > 0 && deleteBeforeReplace,
    fields,
  };
}

/** Fingerprint of a secret input as kept in state under `<field>Fingerprint` (keyed when `key` is given). */
export function secretFingerprint(
  value: string | undefined,
  salt: string,
  field: string,
  key?: FingerprintKey,
): string | undefined {
  return value === undefined ? undefined : fingerprint(value, `${salt}:${field}`, key);
}
