/**
 * Creates that skip the look-up, and the look-up they fall back on. The reconciler knows from its
 * observation that no object has the key it is about to create, so it creates at once
 * (`lookup: "never"`). When the answer leaves the outcome unknown (no answer, a timeout, a 5xx) or
 * says the key is taken (409), the create throws {@link CreateOutcomeUnknown}; once the other
 * creates of its phase are done, apply looks every such object up (`lookup: "only"`) through one
 * {@link SharedReads}: one read of each parent (a canvas and its UDFs) answers all of them, so a
 * burst of lost answers on a canvas costs one read of the canvas, not one per UDF.
 */
import { SvcError } from "../errors";
import { isApiError } from "../api/errors";

/** Reads shared by the look-ups of one pass: the first look-up of a scope reads it, the others reuse that read. */
export class SharedReads {
  private readonly reads = new Map<string, Promise<unknown>>();

  read<T>(scope: string, read: () => Promise<T>): Promise<T> {
    let result = this.reads.get(scope) as Promise<T> | undefined;
    if (!result) {
      result = read();
      this.reads.set(scope, result);
      // A failed read is not kept: the next look-up tries again.
      result.catch(() => this.reads.get(scope) === result && this.reads.delete(scope));
    }
    return result;
  }
}

/** A create sent without a look-up whose outcome is unknown: the object may exist now. */
export class CreateOutcomeUnknown extends SvcError {
  constructor(override readonly cause: Error) {
    super("create_outcome_unknown", cause.message);
    this.name = "CreateOutcomeUnknown";
  }
}

/** A look-up-only create (`lookup: "only"`) found no object with the key. */
export class NothingToAdopt extends SvcError {
  constructor(key: string) {
    super("nothing_to_adopt", `No object with key ${key} was found.`);
    this.name = "NothingToAdopt";
  }
}

/** The create's outcome is unknown (it may have been done), or the key it creates is taken. */
export function mayExist(e: unknown): boolean {
  return (
    isApiError(e, "server_error") || isApiError(e, "timeout") || isApiError(e, "network") || isApiError(e, "conflict")
  );
}

/** Runs a create sent without a look-up; a failure that {@link mayExist} becomes {@link CreateOutcomeUnknown}. */
export async function createUnlooked<C>(create: () => Promise<C>): Promise<C> {
  try {
    return await create();
  } catch (e) {
    if (mayExist(e)) throw new CreateOutcomeUnknown(e as Error);
    throw e;
  }
}
