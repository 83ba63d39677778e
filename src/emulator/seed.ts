/**
 * What a new emulator holds: teams (execution environments) with billing, real-time instances and
 * buckets; users by tier; service accounts; and the tokens to reach them. `--seed FILE` (YAML or
 * JSON, same shape as {@link SeedSpec}; read by `seed-file.ts`) replaces the default.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { DatasetSpec } from "./datasets/dataset-spec";
import { hashToken, type Keys } from "./keys";
import { insertServiceAccount } from "./principal";
import type { Store } from "./store";

const SeedUser = z.strictObject({
  name: z.string().min(1),
  email: z.string().nullable().optional(),
  handle: z.string().min(1).nullable().optional(),
  tier: z.enum(["paid", "basic"]).default("paid"),
  /** A fixed token; derived from the data dir's key when absent. */
  token: z.string().min(8).optional(),
});

const SeedTeam = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]+$/, 'a team name of letters, digits, "_" and "-" ([A-Za-z0-9_-]+)'),
  billing: z.boolean().default(true),
  instances: z
    .array(
      z.strictObject({
        client_id: z.string().min(1).optional(),
        name: z.string().min(1),
        endpoint: z.string().optional(),
        preference_rank: z.number().int(),
      }),
    )
    .default([]),
  buckets: z
    .array(z.string().regex(/^(s3|gs):\/\/[^/]+\/?$/, "a bucket URL such as s3://name or gs://name"))
    .default([]),
  users: z.array(SeedUser).default([]),
  service_accounts: z
    .array(z.strictObject({ name: z.string().min(1), token: z.string().min(8).optional() }))
    .default([]),
});

export const SeedSpec = z.strictObject({
  teams: z.array(SeedTeam).min(1),
  reserved_handles: z.array(z.string()).default(["admin", "root", "support", "api", "www"]),
  /** H3-indexed datasets the emulator indexes at its first start (see `datasets/dataset-spec.ts`). */
  datasets: z.array(DatasetSpec).default([]),
});
export type SeedSpec = z.input<typeof SeedSpec>;

/** The default: team `demo` (billing, two instances, one bucket, a paid and a basic user, a service account) and team `other` without billing. */
export const DEFAULT_SEED: SeedSpec = {
  teams: [
    {
      name: "demo",
      billing: true,
      instances: [
        { client_id: "rt-demo-primary", name: "demo-primary", preference_rank: 10 },
        { client_id: "rt-demo-secondary", name: "demo-secondary", preference_rank: 1 },
      ],
      buckets: ["s3://demo-bucket"],
      users: [
        { name: "Dana Demo", email: "dana@demo.example", handle: "dana", tier: "paid" },
        { name: "Basil Basic", email: "basil@demo.example", handle: "basil", tier: "basic" },
      ],
      service_accounts: [{ name: "ci-bot" }],
    },
    {
      name: "other",
      billing: false,
      instances: [{ client_id: "rt-other-primary", name: "other-primary", preference_rank: 5 }],
      buckets: ["gs://other-bucket"],
      users: [{ name: "Olga Other", email: "olga@other.example", handle: "olga", tier: "paid" }],
    },
  ],
};

/** Tokens and ids the ready line and `startEmulator` report. */
export interface SeedTokens {
  user_token: string;
  basic_user_token?: string;
  other_user_token?: string;
  service_token?: string;
  client_id?: string;
  /** Every seeded user's token by handle (or name), and service tokens by `team/name`. */
  users: Record<string, string>;
  service_accounts: Record<string, string>;
}

/**
 * Writes the seed into an empty store (a store that already holds a seed is left as is) and returns
 * the tokens. Tokens are derived from the master key, so a restart on the same data dir yields the
 * same ones while the store keeps only their hashes.
 */
export function applySeed(store: Store, keys: Keys, input: SeedSpec, now: Date): SeedTokens {
  const seed = SeedSpec.parse(input);
  const fresh = !store.get("SELECT value FROM meta WHERE key = 'seeded'");
  const tokens: SeedTokens = { user_token: "", users: {}, service_accounts: {} };
  const stamp = now.toISOString();
  store.tx(() => {
    for (const h of seed.reserved_handles) store.run("INSERT OR IGNORE INTO reserved_handles (handle) VALUES (?)", h);
    seed.teams.forEach((team, ti) => {
      const envId = fresh
        ? `env-${team.name}`
        : store.get<{ id: string }>("SELECT id FROM envs WHERE name = ?", team.name)?.id;
      if (!envId) return;
      if (fresh) {
        store.run("INSERT INTO envs (id, name, billing) VALUES (?, ?, ?)", envId, team.name, team.billing);
        for (const inst of team.instances) {
          store.run(
            "INSERT INTO realtime_instances (client_id, env_id, name, endpoint, preference_rank) VALUES (?, ?, ?, ?, ?)",
            inst.client_id ?? `rt-${team.name}-${inst.name}`,
            envId,
            inst.name,
            inst.endpoint ?? `https://realtime.emulator.invalid/${inst.name}`,
            inst.preference_rank,
          );
        }
        for (const b of team.buckets)
          store.run("INSERT INTO buckets (url, env_id) VALUES (?, ?)", b.replace(/\/$/, ""), envId);
      }
      team.users.forEach((u, ui) => {
        const label = u.handle ?? u.name;
        const token = u.token ?? keys.seedToken("svc_pat_", `${team.name}/${label}`);
        const userId = `user-${team.name}-${ui + 1}`;
        if (fresh) {
          store.run(
            "INSERT INTO users (id, env_id, name, email, handle, tier, signup_date, is_default_owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            userId,
            envId,
            u.name,
            u.email ?? null,
            u.handle ?? null,
            u.tier,
            stamp,
            ui === 0,
          );
          store.run(
            "INSERT INTO credentials (token_hash, kind, subject_id) VALUES (?, 'user', ?)",
            hashToken(token),
            userId,
          );
        }
        tokens.users[label] = token;
        if (ti === 0 && u.tier === "paid" && !tokens.user_token) tokens.user_token = token;
        if (ti === 0 && u.tier === "basic" && !tokens.basic_user_token) tokens.basic_user_token = token;
        if (ti === 1 && !tokens.other_user_token) tokens.other_user_token = token;
      });
      for (const sa of team.service_accounts) {
        const token = sa.token ?? keys.seedToken("svc_sa_", `${team.name}/${sa.name}`);
        if (fresh) {
          const id = randomUUID();
          insertServiceAccount(store, { id, env_id: envId, name: sa.name, created_at: stamp }, token);
        }
        tokens.service_accounts[`${team.name}/${sa.name}`] = token;
        if (ti === 0 && !tokens.service_token) tokens.service_token = token;
      }
      if (ti === 0) {
        tokens.client_id = store.get<{ client_id: string }>(
          "SELECT client_id FROM realtime_instances WHERE env_id = ? ORDER BY preference_rank DESC LIMIT 1",
          envId,
        )?.client_id;
      }
    });
    if (fresh) store.run("INSERT INTO meta (key, value) VALUES ('seeded', ?)", stamp);
  });
  return tokens;
}
