/**
 * The team's canvases in full, for an observation (and `svc-iac import`), through answers bounded
 * by one canvas each.
 *
 * Why not the spec's paged listings: the spec pages (`skip`, `limit` ≤ 300) only `/collection/self`
 * and `/collection/self/shared` (and their lite variants), `/udf/self`, `/udf/exec-env/self` and the
 * job listings. The first four are user-scoped: the signed-in user's own canvases and UDFs, not the
 * team's (a teammate's canvas of the same name, or one made by hand, would go unseen), and a service
 * token is refused there. `/udf/exec-env/self` pages the team's UDFs with their bodies, but not
 * the canvases: their `dashboard_body` and `share_client_id` appear only in the full canvas records
 * (the lite listing leaves them out), so a read per canvas would still be needed; and offset pages
 * are no snapshot: a UDF created or deleted while the pages are read shifts the later ones, so one
 * UDF can be seen twice or not at all (and a UDF not seen is planned as deleted out of band). The
 * team's canvas listings (`/collection/exec-env` and its lite variant) have no paging: the full one
 * carries every canvas with every UDF body in one answer (123 MB at 100,000 UDFs), which proxies
 * and gateways in front of a real platform cut or time out.
 *
 * So: the lite listing (every canvas with its own fields and its UDF ids, no bodies and no
 * dashboard: about 40 bytes per UDF, 3.8 MiB at 100,000 UDFs; the one answer that grows with the
 * team), then each canvas read by id (`GET /collection/by-id/{id}`, the canvas with its UDFs, a
 * consistent view of that canvas: the answer grows with one canvas, not with the team),
 * {@link READS_IN_FLIGHT} at a time. A read that fails in a way that may pass is read again, alone
 * ({@link READ_ATTEMPTS} times in all), not the whole observation; a canvas deleted between the
 * listing and its read (404) is left out, as one deleted before the listing would be. The answer
 * is in the listing's order (creation), whatever order reads end in.
 *
 * Each answer's UDFs become observed states as it arrives and its raw records are dropped, so an
 * observation holds at most {@link READS_IN_FLIGHT} canvases' raw answers at a time, not the team's.
 */
import type { SvcClient } from "../api/client";
import { isApiError } from "../api/errors";
import { backoffDelay, DEFAULT_RETRY } from "../api/retry";
import type { Canvas, CanvasFields, CanvasLite } from "../api/schemas";
import type { Observed } from "./kind";
import { observedUdfs, type UdfState } from "./udf/udf-state";

/** One canvas of the team as read: its own fields (without `udfs`), and its UDFs as observed states. */
export interface TeamCanvas {
  /** Its own fields: `udfs` is taken off. */
  canvas: CanvasFields;
  udfs: Observed<UdfState>[];
}

/** Canvas reads in flight at once during an observation. */
export const READS_IN_FLIGHT = 8;
/** Attempts of one read (the listing or one canvas), each itself retried by the transport as any GET is. */
export const READ_ATTEMPTS = 3;

/** Failures worth reading again: a 5xx or 429 (after the transport's own retries), no answer, a cut or garbled body. */
export function mayPassOnRetry(e: unknown): boolean {
  return isApiError(e) && (e.retryable || e.code === "server_error" || e.code === "unexpected_response");
}

/** Runs `read` until it succeeds, at most `attempts` times, waiting between attempts; throws the last failure. */
export async function readAgainOnFailure<T>(read: () => Promise<T>, attempts = READ_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (e) {
      if (attempt >= attempts || !mayPassOnRetry(e)) throw e;
      await new Promise((r) => setTimeout(r, backoffDelay(attempt, DEFAULT_RETRY)));
    }
  }
}

/** Calls `work` for every index below `count`, `inFlight` at a time; stops starting new ones after a failure and throws it. */
async function eachInFlight(count: number, inFlight: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(inFlight, count)) }, async () => {
      while (!failed && next < count) {
        const i = next++;
        try {
          await work(i);
        } catch (e) {
          failed = true;
          throw e;
        }
      }
    }),
  );
}

/** Reads each canvas of `listed` (`fetch`, read again on a failure that may pass), {@link READS_IN_FLIGHT} at a time, and makes each answer into `shape` as it arrives; leaves out canvases deleted since the listing. In the listing's order. */
async function readListed<A, T>(
  listed: readonly CanvasLite[],
  fetch: (id: string) => Promise<A>,
  shape: (answer: A) => T,
  opts: { inFlight?: number; attempts?: number },
): Promise<T[]> {
  const read: (T | undefined)[] = new Array(listed.length);
  await eachInFlight(listed.length, opts.inFlight ?? READS_IN_FLIGHT, async (i) => {
    let answer: A;
    try {
      answer = await readAgainOnFailure(() => fetch(listed[i]!.id), opts.attempts ?? READ_ATTEMPTS);
    } catch (e) {
      // Deleted since the listing: as if deleted before it.
      if (isApiError(e, "not_found")) return;
      throw e;
    }
    read[i] = shape(answer);
  });
  return read.filter((c): c is T => c !== undefined);
}

/** Every canvas of the caller's team in full, read one canvas per request as the file comment says. */
export async function readTeamCanvases(
  client: SvcClient,
  opts: { inFlight?: number; attempts?: number } = {},
): Promise<TeamCanvas[]> {
  const listed = await readAgainOnFailure(() => client.canvases.listExecEnvLite(), opts.attempts ?? READ_ATTEMPTS);
  return readListed(
    listed,
    (id) => client.canvases.getFieldsById(id),
    (answer: CanvasFields) => {
      const udfs = observedUdfs(answer.name, answer.udfs, "GET /collection/by-id/{collection_id}");
      delete answer.udfs;
      return { canvas: answer, udfs };
    },
    opts,
  );
}

/**
 * The team's lite listing (every canvas, its UDF ids, no bodies) and the full records (with their
 * UDFs, checked against the spec) of the canvases `wanted` keeps, read one canvas per request as
 * {@link readTeamCanvases} reads them: what `svc-iac import` needs, in answers bounded by one canvas.
 */
export async function readTeamCanvasRecords(
  client: SvcClient,
  wanted: (c: CanvasLite) => boolean = () => true,
  opts: { inFlight?: number; attempts?: number } = {},
): Promise<{ listed: CanvasLite[]; canvases: Canvas[] }> {
  const listed = await readAgainOnFailure(() => client.canvases.listExecEnvLite(), opts.attempts ?? READ_ATTEMPTS);
  const canvases = await readListed(
    listed.filter(wanted),
    (id) => client.canvases.getById(id),
    (c) => c,
    opts,
  );
  return { listed, canvases };
}
