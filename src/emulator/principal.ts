/**
 * Who is calling (spec section 5). `Authorization: Bearer` is a user; `Svc-Service-Token` is the
 * team's execution environment; `Svc-Canvas-Passcode` is only read by the by-token canvas route.
 */
import { hashToken } from "./keys";
import { forbidden, unauthorized } from "./http-error";
import type { Store } from "./store";

export interface Principal {
  kind: "user" | "service";
  envId: string;
  userId?: string;
  serviceAccountId?: string;
  tier?: string;
}

export type Scope = "user" | "environment" | "user_or_environment" | "by_token" | "public_or_authorized" | "public";

export type ParsedAuth =
  | { scheme: "none" }
  | { scheme: "bearer" | "service" | "passcode"; credential: string }
  | { scheme: "malformed" };

export function parseAuthorization(header: string | undefined): ParsedAuth {
  if (header === undefined || header === "") return { scheme: "none" };
  const m = /^(\S+)\s+(\S+)\s*$/.exec(header);
  if (!m) return { scheme: "malformed" };
  const scheme = m[1].toLowerCase();
  if (scheme === "bearer") return { scheme: "bearer", credential: m[2] };
  if (scheme === "svc-service-token") return { scheme: "service", credential: m[2] };
  if (scheme === "svc-canvas-passcode") return { scheme: "passcode", credential: m[2] };
  return { scheme: "malformed" };
}

/** Records a service account and its token (only the token's hash is stored). */
export function insertServiceAccount(
  store: Store,
  row: { id: string; env_id: string; name: string; created_at: string },
  token: string,
): void {
  store.run(
    "INSERT INTO service_accounts (id, env_id, name, created_at) VALUES (?, ?, ?, ?)",
    row.id,
    row.env_id,
    row.name,
    row.created_at,
  );
  store.run(
    "INSERT INTO credentials (token_hash, kind, subject_id) VALUES (?, 'service', ?)",
    hashToken(token),
    row.id,
  );
}

/** Resolves a Bearer or service credential to a principal, or throws 401. */
export function resolveCredential(store: Store, auth: ParsedAuth): Principal | undefined {
  if (auth.scheme === "none" || auth.scheme === "passcode") return undefined;
  if (auth.scheme === "malformed") throw unauthorized("Invalid authorization header");
  const row = store.get<{ kind: string; subject_id: string }>(
    "SELECT kind, subject_id FROM credentials WHERE token_hash = ?",
    hashToken(auth.credential),
  );
  if (!row || (auth.scheme === "bearer") !== (row.kind === "user"))
    throw unauthorized("Invalid or expired credentials");
  if (row.kind === "user") {
    const u = store.get<{ id: string; env_id: string; tier: string }>(
      "SELECT id, env_id, tier FROM users WHERE id = ?",
      row.subject_id,
    );
    if (!u) throw unauthorized("Invalid or expired credentials");
    return { kind: "user", envId: u.env_id, userId: u.id, tier: u.tier };
  }
  const sa = store.get<{ id: string; env_id: string }>(
    "SELECT id, env_id FROM service_accounts WHERE id = ?",
    row.subject_id,
  );
  if (!sa) throw unauthorized("Invalid or expired credentials");
  return { kind: "service", envId: sa.env_id, serviceAccountId: sa.id };
}

/** Applies an endpoint's scope: 401 without valid credentials, 403 for a service token on a user endpoint. */
export function authorize(scope: Scope, store: Store, auth: ParsedAuth): Principal | undefined {
  switch (scope) {
    case "public":
    case "by_token":
      return undefined;
    case "public_or_authorized":
      return resolveCredential(store, auth);
    default: {
      const p = resolveCredential(store, auth);
      if (!p) throw unauthorized();
      if (scope === "user" && p.kind !== "user")
        throw forbidden("This endpoint acts on a user; a service account token cannot be used");
      return p;
    }
  }
}
