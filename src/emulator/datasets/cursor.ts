/**
 * Paging cursors of the dataset query (spec 4.11 rule 3): the position of the next row group,
 * bound to the query it came from (every parameter but `cursor`) and to the dataset's index
 * generation, and signed with the emulator's key so it cannot be edited. Another query's cursor is
 * 400; a cursor from before a re-index is 409 (section 7).
 */
import { createHash } from "node:crypto";
import { badRequest, conflict } from "../http-error";
import type { Keys } from "../keys";

interface CursorBody {
  /** Hash of the query identity. */
  q: string;
  /** Index generation of the dataset. */
  g: number;
  /** Offset of the next row group among the query's matching row groups. */
  o: number;
}

const digest = (identity: string) => createHash("sha256").update(identity).digest("base64url").slice(0, 22);

export function encodeCursor(keys: Keys, identity: string, generation: number, offset: number): string {
  const body = Buffer.from(
    JSON.stringify({ q: digest(identity), g: generation, o: offset } satisfies CursorBody),
  ).toString("base64url");
  return `${body}.${keys.sign(`h3-cursor:${body}`)}`;
}

/** The offset a cursor points at; 400 for a foreign or altered cursor or another query's, 409 after a re-index. */
export function decodeCursor(keys: Keys, cursor: string, identity: string, generation: number, path: string): number {
  const [body, signature, extra] = cursor.split(".");
  if (!body || !signature || extra !== undefined || !keys.verify(`h3-cursor:${body}`, signature)) {
    throw badRequest("Invalid cursor: it was not issued by this server or was altered");
  }
  const c = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as CursorBody;
  if (c.q !== digest(identity)) {
    throw badRequest(
      "The cursor belongs to a different query: send it back with exactly the parameters of the query that returned it",
    );
  }
  if (c.g !== generation) {
    throw conflict(
      `The cursor predates a re-index of ${path}: the dataset changed while paging; start the query again without a cursor`,
    );
  }
  return c.o;
}
