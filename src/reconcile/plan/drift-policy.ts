/**
 * What `svc-iac drift --remediate` does with each drifted object: its `on_drift` policy (the most
 * specific wins: the object's own settings, then its canvas's canvas.yaml, then the target in
 * svc.yaml, then the project; default `report`), and whether a `restore` has become a contest (the
 * object was restored `flapping.restores` times within `flapping.within` while the repository
 * declared the same thing). Pure.
 */
import { canonicalJson } from "../../canonical-json";
import type { FingerprintKey } from "../../kinds/fingerprint";
import type { DesiredObject, DriftPolicySetting, FlappingSettings, LoadedProject } from "../../model/desired";
import type { RestoreRecord } from "../state/types";
import type { DriftItem } from "./plan-model";
import { durationMs } from "./rotation";

export const DEFAULT_DRIFT_POLICY: DriftPolicySetting = { policy: "report", from: "the default on_drift" };

/** The flapping rule when svc.yaml sets none. */
export const DEFAULT_FLAPPING_RULE: FlappingSettings = { restores: 3, within: "7d" };

/** The policy of `address` in `project`, with where it is set. */
export function driftPolicyOf(project: LoadedProject, address: string): DriftPolicySetting {
  const object = project.objects.find((o) => o.address === address);
  if (object?.options.onDrift) return object.options.onDrift;
  const canvas = object?.refs.canvas;
  if (canvas) {
    const parent = project.objects.find((o) => o.kind === "Canvas" && o.address === `canvas.${canvas}`);
    if (parent?.options.onDrift) return parent.options.onDrift;
  }
  return project.settings.onDrift ?? DEFAULT_DRIFT_POLICY;
}

/** What remediation can do with a drift class: restore a changed or missing object, keep a changed one. */
export function remediable(item: DriftItem): boolean {
  return item.class === "changed" || item.class === "missing";
}

/**
 * A digest of what the repository declares for `object` (its inputs, references and options but
 * the drift policy), keyed: a restore history records it, never a value.
 */
export function declaredDigest(object: DesiredObject, key: FingerprintKey): string {
  const { onDrift: _policy, ...options } = object.options;
  return `hmac-sha256:${key
    .hmac(canonicalJson({ kind: object.kind, inputs: object.inputs, refs: object.refs, options }))
    .slice(0, 24)}`;
}

/**
 * The restores that count against `flapping` at `now`: within the window, of the object as the
 * repository declares it now (a change in the repository starts the count again).
 */
export function countedRestores(
  records: readonly RestoreRecord[],
  declared: string,
  flapping: FlappingSettings,
  now: Date,
): RestoreRecord[] {
  const since = now.getTime() - durationMs(flapping.within);
  return records.filter(
    (r) => r.declared === declared && Date.parse(r.at) > since && Date.parse(r.at) <= now.getTime(),
  );
}

/** True when the object has been restored as often as `flapping` allows: it is contested. */
export function isContested(counted: readonly unknown[], flapping: FlappingSettings): boolean {
  return counted.length >= flapping.restores;
}
