/**
 * Creates that skip the look-up, and the look-up they fall back on. The reconciler knows from its
 * observation that no object has the key it is about to create, so it creates at once; only when
 * the answer leaves the outcome unknown (no answer, a timeout, a 5xx) or says the key is taken
 * (409) does it look the object up, in a listing of the object's parent read after the failure.
 * The creates of one apply share those listings: every create that failed before a listing of its
 * parent started is answered by that one listing, so a burst of lost answers on a canvas costs one
 * read of the canvas, not one per UDF.
 */
import { isApiError } from "../api/errors";

/** Listings of parents shared by the creates of one run (see the module comment). */
export class FreshListings {
  private readonly reads = new Map<string, { startedAt: number; result: Promise<unknown> }>();

  /** A read of `scope` started at or after `since` (`performance.now()`): a shared one when there is one, else a new one. */
  after<T>(scope: string, since: number, read: () => Promise<T>): Promise<T> {
    const current = this.reads.get(scope);
    if (current && current.startedAt >= since) return current.result as Promise<T>;
    const startedAt = performance.now();
    const result = read();
    const entry = { startedAt, result };
    this.reads.set(scope, entry);
    result.catch(() => {
      if (this.reads.get(scope) === entry) this.reads.delete(scope);
    });
    return result;
  }
}

/** The create's outcome is unknown (it may have been done), or the key it creates is taken: look it up. */
export function mayExist(e: unknown): boolean {
  return isApiError(e, "server_error") || isApiError(e, "timeout") || isApiError(e, "network") || isApiError(e, "conflict");
}

/**
 * Runs `create`; when it fails in a way that {@link mayExist}, asks `find` (given the time of the
 * failure, for {@link FreshListings.after}) for the object, and returns it as `found`. Rethrows the
 * create's error when the object is not there.
 */
export async function createOrFind<C, F>(create: () => Promise<C>, find: (since: number) => Promise<F | undefined>): Promise<{ created: C } | { found: F }> {
  try {
    return { created: await create() };
  } catch (e) {
    if (!mayExist(e)) throw e;
    const found = await find(performance.now());
    if (found === undefined) throw e;
    return { found };
  }
}
