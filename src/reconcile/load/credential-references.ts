/**
 * No field that is not secret may read a credential from the environment. A pull request writes
 * the repository and the plan runs with the platform token in its environment: `dashboard_body:
 * ${env.SVC_TOKEN}` would print the token in the plan and its pull-request comment, and store it on
 * the platform as plain text. So `${env.NAME}` outside a secret field is refused when NAME holds
 * the platform token (the target's `token_env` / `service_token_env`, and the defaults), GitHub's
 * own tokens, or a secret value of the repository (read by `secrets.yaml` or a `passcode`). A
 * UDF's `tests:` may pass a secret value (they only call the deployed UDF, and `svc-iac test`
 * redacts it), never a platform token.
 */
import type { Diagnostics } from "../../repository/diagnostics";
import type { Resolver } from "../../repository/variables";

/** The runner's own credentials: GitHub's token and the Actions runtime's. */
const RUNNER_CREDENTIALS = ["GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"];

/** The environment variables holding the platform token, by default and for the target. */
export interface CredentialNames {
  tokenEnv: string;
  serviceTokenEnv: string;
}

/**
 * Reports each `${env.NAME}` of a field that is not secret naming a credential, at the field.
 * Returns the names reported: their values are scrubbed from every message of the load, as a
 * field's other errors may quote what it resolved to (a name prefix making an invalid name).
 */
export function checkCredentialReferences(
  vars: Resolver,
  credentials: CredentialNames | undefined,
  diag: Diagnostics,
): string[] {
  const refused = new Set<string>();
  const tokens = new Map<string, string>();
  for (const name of ["SVC_TOKEN", "SVC_SERVICE_TOKEN", credentials?.tokenEnv, credentials?.serviceTokenEnv]) {
    if (name) tokens.set(name, "the platform token");
  }
  for (const name of RUNNER_CREDENTIALS) tokens.set(name, "a GitHub token");
  for (const use of vars.plainEnvUses) {
    const token = tokens.get(use.name);
    const secret = !token && vars.secretEnvNames.has(use.name) && !/^tests\[/.test(use.path);
    if (!token && !secret) continue;
    refused.add(use.name);
    const holds = token ?? "a secret value of this repository (secrets.yaml or a passcode reads it)";
    diag.add({
      ...use,
      message: `found \${env.${use.name}} in a field that is not secret, expected a variable that holds no credential: ${use.name} holds ${holds}, which this field would show in plans and pull-request comments and store on the platform as plain text; put secret values in secrets.yaml`,
    });
  }
  return [...refused];
}
