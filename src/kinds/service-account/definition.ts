/** The ServiceAccount kind's fields: its Pulumi arguments and outputs (`src/provider/service-account.ts`). */
import type { KindDefinition } from "../kind-definition";
import { protect, ROTATE_EVERY } from "../repository-keys";

/** The longest name: platform names have at most 200 characters, and the tag ` [svc-iac xxxxxx]` takes 17. */
export const MAX_NAME = 200 - 17;

export const serviceAccountDefinition = {
  kind: "ServiceAccount",
  description:
    "A service account of the team's environment and its token (a machine credential for `Svc-Service-Token`). The token is returned only at creation, so every change replaces the account, new before old: the new token can be distributed before the old one stops working. Managing accounts needs a user's Bearer token (`svc:token`). If an account with the same platform name already exists (an interrupted earlier create, or another stack), creation stops and says how to resolve it rather than adopting an account whose token nobody can read.",
  example:
    'const deployer = new svc.ServiceAccount("deployer", { name: "ci-deployer", rotation: "2025-06" });\nexport const deployerToken = deployer.token; // secret',
  inputs: {
    name: {
      type: "string",
      description: "The account's name; on the platform it reads `<name> [svc-iac <tag>]`. A change replaces it.",
      required: true,
      replaceOnChanges: true,
      output: "always",
      example: '"ci-deployer"',
      check: {
        message: 'A service account name is a string, e.g. "ci-deployer".',
        minLength: { value: 1, message: "A service account name must not be empty." },
        maxLength: {
          value: MAX_NAME,
          message: `A service account name has at most ${MAX_NAME} characters (the platform allows 200, and svc-iac appends a 17-character tag).`,
        },
      },
    },
    rotation: {
      type: "any",
      description: "Any value; changing it rotates the token: a new account is created, then the old one deleted.",
      replaceOnChanges: true,
      defaultDoc: "none",
      example: '"2025-06"',
    },
  },
  outputs: {
    accountName: { type: "string", description: "The name on the platform: `<name> [svc-iac <tag>]`.", required: true },
    token: { type: "string", description: "The token (secret).", required: true, secret: true },
    createdAt: { type: "string", description: "When the account was created (ISO 8601).", required: true },
  },
  repository: {
    file: {
      schema: "service-accounts",
      title: "service-accounts.yaml",
      description: "Service accounts and their token rotation policy.",
      listedUnder: {
        key: "service_accounts",
        schema: (properties) => ({
          type: "object",
          description: "Service account name -> rotation policy.",
          additionalProperties: { type: ["object", "null"], additionalProperties: false, properties },
        }),
      },
    },
    keys: {
      rotation: {
        schema: {
          type: ["string", "number"],
          description:
            "A trigger value: changing it rotates the token (a new account is created, its token published, the old one deleted).",
        },
        input: "rotation",
      },
      rotate_every: { schema: ROTATE_EVERY },
      protect: { schema: protect("service account") },
    },
  },
  pulumiHooks: true,
  importId: {
    id: "SERVICE_ACCOUNT_ID",
    where: "the service account's id",
    inputs: ["name"],
    declareAfter:
      "`rotation`, when the account was made by svc-iac with one: the value whose tag the account's name carries is no change. Its `token` cannot be read again and stays null",
  },
} satisfies KindDefinition;
