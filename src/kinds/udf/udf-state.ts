/**
 * The Udf kind's state as kept and observed, and how a platform UDF record becomes it: apart from
 * `udf.ts` so the team's canvas reads (`team-canvases.ts`) can make each answer's UDFs into states
 * as it arrives, without importing the kind.
 */
import { z } from "zod";
import { plainlyValidUdf, Udf as UdfRecord, type Udf as ApiUdf } from "../../api/schemas";
import type { Observed } from "../kind";
import { parseUdfBody, type UdfHeader } from "./udf-body";
import { SvcError } from "../../errors";

/** Checked inputs: the code of every module is inline (files read). */
export interface UdfInputs {
  /** Absent for a UDF without a canvas (`collection_id` null). */
  canvasId?: string;
  slug: string;
  code: string;
  entrypoint: string;
  headers: UdfHeader[];
  metadata: Record<string, unknown>;
  createSharedToken: boolean;
}

/** Kept state: the inputs and the platform's outputs. */
export interface UdfState extends Omit<UdfInputs, "canvasId" | "createSharedToken"> {
  id: string;
  /** Null when the UDF was moved off every canvas (to its owner's default canvas). */
  canvasId: string | null;
  /** Absent when unknown (a UDF found by a listing). */
  createSharedToken?: boolean;
  udfBodyHash: string;
  /** The per-UDF shared token (`fsh_...`): only returned when the UDF is created. Secret. */
  sharedToken?: string;
  /** Shown on its canvas, and its place there (set through the canvas; outputs only). */
  isVisible?: boolean;
  position?: number;
}

/** The list of UDF records of one canvas's answer. */
const UdfList = z.array(UdfRecord);

/** {@link plainlyValidUdf} for a whole list: the records are used as they are (the schema would copy each one). */
export function plainlyValidUdfs(raw: unknown): raw is ApiUdf[] {
  return Array.isArray(raw) && raw.every(plainlyValidUdf);
}

export function udfState(u: ApiUdf, kept: { createSharedToken?: boolean; sharedToken?: string } = {}): UdfState {
  const body = parseUdfBody(u.udf_body);
  return {
    id: u.id,
    canvasId: u.collection_id ?? null,
    slug: u.slug,
    code: body.code,
    entrypoint: body.entrypoint,
    headers: body.headers,
    metadata: body.metadata,
    ...(kept.createSharedToken === undefined ? {} : { createSharedToken: kept.createSharedToken }),
    udfBodyHash: u.udf_body_hash,
    ...(kept.sharedToken ? { sharedToken: kept.sharedToken } : {}),
    ...(typeof u.is_visible === "boolean" ? { isVisible: u.is_visible } : {}),
    ...(typeof u.position === "number" ? { position: u.position } : {}),
  };
}

/**
 * The UDFs of one canvas's answer (`udfs`, unchecked until here) as observed states, keyed
 * `<canvasId>/<slug>`; `where` names the request in the error when they do not match the spec.
 * Values repeated across the answer (the canvas id, the entrypoint) are kept as one string each:
 * JSON.parse makes one per record, and 100,000 observed UDFs held each of them 100,000 times.
 */
export function observedUdfs(canvasName: string, raw: unknown, where: string): Observed<UdfState>[] {
  const udfs = plainlyValidUdfs(raw) ? { success: true as const, data: raw } : UdfList.safeParse(raw);
  if (!udfs.success)
    throw new SvcError(
      "platform_answer_invalid",
      `The UDFs of canvas "${canvasName}" in ${where} do not match the spec: ${udfs.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; ")}.`,
    );
  const shared = new Map<string, string>();
  const share = (s: string): string => shared.get(s) ?? (shared.set(s, s), s);
  const out: Observed<UdfState>[] = [];
  for (const u of udfs.data) {
    if (!u.collection_id) continue;
    const state = udfState(u);
    state.canvasId = share(u.collection_id);
    state.entrypoint = share(state.entrypoint);
    out.push({ id: u.id, key: `${state.canvasId}/${u.slug}`, state });
  }
  return out;
}
