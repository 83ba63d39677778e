/**
 * Spec 4.2: user secrets. Owned by the signed-in user (they follow the user, not the team), stored
 * encrypted at rest (AES-256-GCM through `env.keys`) and returned only to their owner. Service
 * tokens are refused by the `user` scope (403); basic-tier users get 403 (a paid plan is required).
 *
 * Decisions where the spec is silent:
 * - DELETE of an absent key answers `{ok: true}` too (idempotent): section 7 lists 404 only for GET,
 *   and a retried DELETE whose first answer was lost must not fail.
 * - A key is a non-empty string of at most 256 characters; a value is any string (empty allowed).
 * - Error details name the key but never the value.
 */
import { z } from "zod";
import type { Area } from "../area";
import { conflict, forbidden, invalid, notFound } from "../http-error";
import { caller, json, parseBody, type RequestContext } from "../route";

export const SECRETS_DDL = `
CREATE TABLE IF NOT EXISTS user_secrets (
  user_id TEXT NOT NULL, key TEXT NOT NULL, value_enc TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, key)
);
`;

const MAX_KEY_LENGTH = 256;

const Key = z.string().min(1).max(MAX_KEY_LENGTH);
const CreateSecret = z.object({ key: Key, value: z.string() });
const PutSecret = z.object({ value: z.string() });

/** The owning user's id, after the paid-plan check. */
function owner(ctx: RequestContext): string {
  const p = caller(ctx);
  if (p.tier === "basic") throw forbidden("User secrets require a paid plan; the basic tier cannot use them");
  return p.userId!;
}

/** The key from the path, checked like the body's key. */
function pathKey(ctx: RequestContext): string {
  const key = ctx.params.key;
  if (key.length > MAX_KEY_LENGTH)
    throw invalid("path", "key", `Should have at most ${MAX_KEY_LENGTH} characters`, "string_too_long");
  return key;
}

function exists(ctx: RequestContext, userId: string, key: string): boolean {
  return !!ctx.store.get("SELECT 1 AS one FROM user_secrets WHERE user_id = ? AND key = ?", userId, key);
}

const absent = (key: string) => notFound(`Secret "${key}" not found`);

export const secretsArea: Area = {
  name: "secrets",
  ddl: SECRETS_DDL,
  routes: [
    {
      method: "GET",
      path: "/secrets/self/user",
      scope: "user",
      handler: (ctx) => {
        const userId = owner(ctx);
        const rows = ctx.store.all<{ key: string }>(
          "SELECT key FROM user_secrets WHERE user_id = ? ORDER BY key",
          userId,
        );
        return { secrets: rows.map((r) => r.key) };
      },
    },
    {
      method: "GET",
      path: "/secrets/self/user/:key",
      scope: "user",
      handler: (ctx) => {
        const userId = owner(ctx);
        const key = pathKey(ctx);
        const row = ctx.store.get<{ value_enc: string }>(
          "SELECT value_enc FROM user_secrets WHERE user_id = ? AND key = ?",
          userId,
          key,
        );
        if (!row) throw absent(key);
        return { key, value: ctx.env.keys.decrypt(row.value_enc) };
      },
    },
    {
      method: "POST",
      path: "/secrets/self/user",
      scope: "user",
      handler: (ctx) => {
        const userId = owner(ctx);
        const input = parseBody(ctx, CreateSecret);
        if (exists(ctx, userId, input.key)) {
          throw conflict(
            `A secret with key "${input.key}" already exists; use PUT /secrets/self/user/{key} to change its value`,
          );
        }
        const now = ctx.now().toISOString();
        ctx.store.run(
          "INSERT INTO user_secrets (user_id, key, value_enc, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
          userId,
          input.key,
          ctx.env.keys.encrypt(input.value),
          now,
          now,
        );
        return json(201, { key: input.key });
      },
    },
    {
      method: "PUT",
      path: "/secrets/self/user/:key",
      scope: "user",
      handler: (ctx) => {
        const userId = owner(ctx);
        const key = pathKey(ctx);
        const input = parseBody(ctx, PutSecret);
        const now = ctx.now().toISOString();
        ctx.store.run(
          `INSERT INTO user_secrets (user_id, key, value_enc, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (user_id, key) DO UPDATE SET value_enc = excluded.value_enc, updated_at = excluded.updated_at`,
          userId,
          key,
          ctx.env.keys.encrypt(input.value),
          now,
          now,
        );
        return { key };
      },
    },
    {
      method: "DELETE",
      path: "/secrets/self/user/:key",
      scope: "user",
      handler: (ctx) => {
        const userId = owner(ctx);
        const key = pathKey(ctx);
        ctx.store.run("DELETE FROM user_secrets WHERE user_id = ? AND key = ?", userId, key);
        return { ok: true };
      },
    },
  ],
};
