/**
 * The team-level files: `secrets.yaml` (each key read from an environment variable: values are
 * never read, let alone written) and `service-accounts.yaml` (names only: a token cannot be read
 * back, so the file says how rotation replaces an imported account).
 */
import type { ServiceAccount as ApiServiceAccount } from "../../api/schemas";
import { PATTERNS } from "../load/keys";
import { byString } from "../phases";
import type { DraftBuilder } from "./draft";
import { yamlText } from "./yaml-text";

const SERVICE_ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,182}$/;
const TAGGED = /^(.*) \[svc-iac [0-9a-f]{6}\]$/s;

export function importSecrets(keys: readonly string[], draft: DraftBuilder): void {
  const secrets: Record<string, string> = {};
  for (const key of [...keys].sort(byString)) {
    if (!PATTERNS.secretKey.test(key)) {
      draft.skip(
        `secret ${JSON.stringify(key)}`,
        key,
        "its key is not one the repository format accepts ([A-Za-z0-9_.-], up to 256)",
      );
      continue;
    }
    secrets[key] = `\${env.${draft.envVar(key, `the value of secret ${key}`)}}`;
    draft.bind({ address: `secret.${key}`, kind: "Secret", id: key, key });
  }
  if (!Object.keys(secrets).length) return;
  draft.file(
    "secrets.yaml",
    yamlText({ secrets }, [
      "Team secrets, imported by svc-iac import. Values are never written to the repository: each one",
      "is read from the environment variable named here. Set them to the values the platform holds",
      "before plan or apply, or the plan shows an update of the value.",
    ]),
  );
}

export function importServiceAccounts(list: readonly ApiServiceAccount[], draft: DraftBuilder): void {
  const accounts: Record<string, Record<string, never>> = {};
  const sorted = [...list].sort(
    (a, b) => byString(a.name, b.name) || byString(a.created_at, b.created_at) || byString(a.id, b.id),
  );
  for (const sa of sorted) {
    // An account svc-iac made carries its rotation tag; the repository names it without.
    const name = TAGGED.exec(sa.name)?.[1] ?? sa.name;
    const label = `service account ${JSON.stringify(sa.name)}`;
    if (!SERVICE_ACCOUNT_NAME.test(name)) {
      draft.skip(
        label,
        sa.id,
        'its name is not one the repository format accepts (1 to 183 letters, digits, spaces, "_", "." or "-")',
      );
      continue;
    }
    if (Object.hasOwn(accounts, name)) {
      draft.skip(
        label,
        sa.id,
        `another service account is imported as ${JSON.stringify(name)}, and the repository holds one account per name`,
      );
      continue;
    }
    accounts[name] = {};
    draft.bind({ address: `service_account.${name}`, kind: "ServiceAccount", id: sa.id, key: sa.name });
  }
  if (!Object.keys(accounts).length) return;
  draft.file(
    "service-accounts.yaml",
    yamlText({ service_accounts: accounts }, [
      "Service accounts, imported by svc-iac import. A token is shown only when its account is created,",
      "so these accounts keep the tokens they have, and svc-iac never sees them. To hand out a token",
      'svc-iac knows, set `rotation: "1"` on an account: apply then creates a new account',
      '"<name> [svc-iac <tag>]", writes its token to --outputs, and deletes the imported one.',
    ]),
  );
}
