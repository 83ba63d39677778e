/**
 * Token rotation policy of shares and service accounts. The kinds rotate when their `rotation`
 * input changes; the reconciler feeds them an *effective* rotation value: the user's trigger as
 * written, or, once `rotate_every` has elapsed, the trigger stamped with the time of the automatic
 * rotation. The inventory keeps both, so an unchanged trigger within the period is no change.
 */
import equal from "fast-deep-equal";
import { SvcError } from "../../errors";

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** `30d` → milliseconds. The loader has already checked the form. */
export function durationMs(text: string): number {
  const m = /^(\d+)([mhdw])$/.exec(text);
  if (!m)
    throw new SvcError(
      "duration_invalid",
      `Invalid duration "${text}". A duration is a whole number followed by m, h, d or w, e.g. "30d".`,
    );
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

export interface RotationKept {
  /** The trigger as the repository had it at the last apply. */
  trigger?: unknown;
  /** The value given to the kind at the last apply. */
  rotation?: unknown;
}

export interface RotationDecision {
  /** The value to give the kind now. */
  rotation: string | number | undefined;
  /** Why it differs from the last one, when it does. */
  reason?: string;
}

/**
 * The effective rotation for an object with trigger `trigger`, policy `every`, last minted at
 * `rotatedAt`, given what the inventory kept. Pure.
 */
export function effectiveRotation(
  trigger: string | number | undefined,
  every: string | undefined,
  kept: RotationKept | undefined,
  rotatedAt: string | undefined,
  now: Date,
): RotationDecision {
  if (!kept) return { rotation: trigger };
  if (!equal(kept.trigger ?? null, trigger ?? null))
    return { rotation: trigger, reason: "the rotation trigger changed" };
  const last = kept.rotation as string | number | undefined;
  if (every && rotatedAt) {
    const due = Date.parse(rotatedAt) + durationMs(every);
    if (now.getTime() >= due) {
      return {
        rotation: `${trigger ?? ""}@${now.toISOString()}`,
        reason: `rotate_every ${every} elapsed (last rotation ${rotatedAt})`,
      };
    }
  }
  return { rotation: last };
}
