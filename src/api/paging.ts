import { SvcError } from "../errors";
/** Listings with `skip`/`limit` paging, and cursor loops, as async iterators. */

/** The spec's default and maximum useful page size for canvas, UDF and job listings. */
export const DEFAULT_PAGE_SIZE = 300;

export interface PageOptions {
  /** Page size sent as `limit`. @default 300 */
  pageSize?: number;
  /** First offset. @default 0 */
  skip?: number;
}

/** An async iterable over every item of a listing, fetched page by page until a short page. */
export interface Listing<T> extends AsyncIterable<T> {
  /** Every page, as fetched. */
  pages(): AsyncIterable<T[]>;
  /** Every item, collected into one array. */
  toArray(): Promise<T[]>;
}

export function listing<T>(
  fetchPage: (skip: number, limit: number) => Promise<T[]>,
  opts: PageOptions = {},
): Listing<T> {
  const limit = opts.pageSize ?? DEFAULT_PAGE_SIZE;
  async function* pages(): AsyncGenerator<T[]> {
    let skip = opts.skip ?? 0;
    for (;;) {
      const page = await fetchPage(skip, limit);
      yield page;
      if (page.length < limit) return;
      skip += page.length;
    }
  }
  async function* items(): AsyncGenerator<T> {
    for await (const page of pages()) yield* page;
  }
  return {
    [Symbol.asyncIterator]: items,
    pages,
    async toArray() {
      const out: T[] = [];
      for await (const page of pages()) out.push(...page);
      return out;
    },
  };
}

/** Follows a cursor until a page comes back without one. */
export async function* cursorPages<P>(
  fetchPage: (cursor: string | undefined) => Promise<{ page: P; next: string | undefined }>,
): AsyncGenerator<P> {
  let cursor: string | undefined;
  const seen = new Set<string>();
  for (;;) {
    const { page, next } = await fetchPage(cursor);
    yield page;
    if (!next) return;
    if (seen.has(next))
      throw new SvcError(
        "platform_answer_invalid",
        `The server returned the cursor "${next.slice(0, 16)}…" twice; stopping to avoid an endless loop.`,
      );
    seen.add(next);
    cursor = next;
  }
}
