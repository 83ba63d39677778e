/**
 * The emulator's store: one SQLite database through Node's built-in `node:sqlite`, in the data dir
 * or in memory. Every request runs in one transaction (see `server.ts`); statements are prepared
 * once and cached, which keeps simple requests well under a millisecond.
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { join } from "node:path";

/** The database's file name in the data dir. */
export const DATABASE_FILE = "emulator.sqlite";

export type Row = Record<string, SQLInputValue>;
export type Param = SQLInputValue | boolean | undefined;

export class Store {
  readonly db: DatabaseSync;
  private readonly cache = new Map<string, StatementSync>();

  constructor(dataDir: string | undefined) {
    this.db = new DatabaseSync(dataDir ? join(dataDir, DATABASE_FILE) : ":memory:");
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
  }

  /** Runs DDL (idempotent `CREATE TABLE IF NOT EXISTS ...`). */
  migrate(ddl: string): void {
    this.db.exec(ddl);
  }

  private stmt(sql: string): StatementSync {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }

  /** First row or undefined. Booleans are stored as 0/1. */
  get<T = Row>(sql: string, ...params: Param[]): T | undefined {
    return this.stmt(sql).get(...params.map(toSql)) as T | undefined;
  }

  all<T = Row>(sql: string, ...params: Param[]): T[] {
    return this.stmt(sql).all(...params.map(toSql)) as T[];
  }

  run(sql: string, ...params: Param[]): { changes: number } {
    const r = this.stmt(sql).run(...params.map(toSql));
    return { changes: Number(r.changes) };
  }

  /** Runs `fn` in a transaction: committed when it returns, rolled back when it throws. */
  tx<T>(fn: () => T): T {
    this.db.exec("BEGIN");
    try {
      const out = fn();
      this.db.exec("COMMIT");
      return out;
    } catch (e) {
      this.db.exec("ROLLBACK");
      throw e;
    }
  }

  close(): void {
    this.cache.clear();
    this.db.close();
  }
}

function toSql(v: Param): SQLInputValue {
  if (v === undefined) return null;
  if (typeof v === "boolean") return v ? 1 : 0;
  return v;
}

/** JSON columns: parse with a fallback. */
export function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== "string" || text === "") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
