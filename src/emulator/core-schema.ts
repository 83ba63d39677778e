/** Tables every area shares: teams (execution environments), users, credentials, instances, buckets. */
export const CORE_DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS envs (
  id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, billing INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY, env_id TEXT REFERENCES envs(id), name TEXT NOT NULL, email TEXT, handle TEXT UNIQUE,
  tier TEXT NOT NULL DEFAULT 'paid', signup_date TEXT, handle_last_changed TEXT, is_default_owner INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS reserved_handles (handle TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS service_accounts (
  id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES envs(id), name TEXT NOT NULL, created_at TEXT NOT NULL
);
-- Every credential, stored only as a SHA-256 hash. kind: user | service.
CREATE TABLE IF NOT EXISTS credentials (
  token_hash TEXT PRIMARY KEY, kind TEXT NOT NULL, subject_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS credentials_subject ON credentials(subject_id);
CREATE TABLE IF NOT EXISTS realtime_instances (
  client_id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES envs(id), name TEXT NOT NULL,
  endpoint TEXT NOT NULL, preference_rank INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS buckets (
  url TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES envs(id), public_read INTEGER NOT NULL DEFAULT 0
);
`;
