/**
 * The inventory: what the reconciler created or adopted for one project and target, and when
 * tokens were last rotated. Shared by the kinds (their reconcile traits read entries) and the
 * engine (which keeps it in a state backend, `src/reconcile/state/`). Pure types.
 */
import type { DesiredKind } from "./desired";

export const INVENTORY_VERSION = 1;

/** One object this project and target manage. */
export interface InventoryEntry {
  kind: DesiredKind;
  /** Platform id. */
  id: string;
  /** Natural key at the last apply (a canvas name, `<canvasId>/<slug>`, a tagged account name …). */
  key: string;
  /** When svc-iac created or adopted it (ISO 8601). */
  createdAt: string;
  /** When it was last created, adopted or updated by apply (ISO 8601). */
  appliedAt: string;
  /** When its token was last minted (shares, service accounts; ISO 8601). */
  rotatedAt?: string;
  /**
   * Values the platform cannot give back but the diff needs: the rotation trigger and the effective
   * rotation value, the scope a share token was minted under, a UDF's createSharedToken, a token's
   * fingerprint. Never a secret value.
   */
  kept?: Record<string, unknown>;
  /**
   * Recorded before a create whose answer carries a token that cannot be read again (service
   * accounts), and cleared once that token is published: if an answer is lost, a publish fails or
   * the process dies, the next run knows every object it finds under these keys is its own orphan
   * whose token nobody holds (see `credential-intent.ts`). `key` is the latest attempt; `keys` every
   * attempt since the last delivered token (inventories written before it have `key` only).
   */
  intent?: { key: string; at: string; keys?: string[] };
  /**
   * When apply minted a token it could not hand over (writing the outputs file or publishing it
   * failed), for kinds whose token the platform keeps (shares): the next plan mints another and
   * publishes it, so no run ends with a live token nobody received and a plan that says nothing.
   */
  undelivered?: string;
  /**
   * `protect: true` was declared on it at the last apply: a plan that would delete or replace it
   * fails, even once it has left the repository (see `protect.ts`).
   */
  protect?: true;
}

export interface Inventory {
  version: typeof INVENTORY_VERSION;
  project: string;
  target: string;
  /** ISO 8601 time of the last write. */
  updatedAt: string;
  /** By address, sorted when written. */
  objects: Record<string, InventoryEntry>;
}
