/**
 * The last line of defence against a token reaching the log or GitHub: every text the action
 * prints or sends (other than a sealed secret) passes through a redactor that knows the input
 * tokens, the credentials in the environment and each token published during the run.
 */
import { scrub } from "../api/errors";

/**
 * Words that make an environment variable's value a secret (`SVC_TOKEN`, `DB_PASSWORD`,
 * `MAPBOX_API_KEY`). Whole words only: `INPUT_GITHUB_SECRETS` holds "repository", not a secret,
 * and redacting that word would mangle every report.
 */
const SECRET_WORDS = new Set(["TOKEN", "SECRET", "PASSWORD", "PASSCODE", "PASSPHRASE", "KEY", "PAT", "CREDENTIALS"]);

function looksSecret(name: string): boolean {
  return name
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .some((word) => SECRET_WORDS.has(word));
}
/** Shorter values would redact ordinary words ("true", a port number). */
const MIN_SECRET_CHARS = 8;

export class Redactor {
  private readonly secrets = new Set<string>();

  /** Starts with the secret-looking values of `env` (`GITHUB_TOKEN`, `INPUT_SECRETS_TOKEN`, `SVC_TOKEN`, …). */
  static fromEnv(env: Record<string, string | undefined>): Redactor {
    const r = new Redactor();
    for (const [name, value] of Object.entries(env)) if (value && looksSecret(name)) r.add(value);
    return r;
  }

  /** Remembers a secret (a token published during the run). */
  add(secret: string): void {
    const s = secret.trim();
    if (s.length >= MIN_SECRET_CHARS) this.secrets.add(s);
  }

  /** `text` with every known secret replaced by `[REDACTED]`. */
  apply(text: string): string {
    return this.secrets.size === 0 ? text : scrub(text, [...this.secrets]);
  }
}
