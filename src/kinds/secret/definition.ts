/** The Secret kind's fields: its Pulumi arguments and outputs (`src/provider/secret.ts`). */
import type { KindDefinition } from "../kind-definition";
import { protect, SECRET_ENV_REF } from "../repository-keys";

export const secretDefinition = {
  kind: "Secret",
  description:
    "A user secret, owned by the signed-in user (`svc:token` must be a paid user's Bearer token). An existing secret of that key is adopted and overwritten. A value changed on the platform shows as drift on `valueFingerprint` after a refresh, without revealing it.",
  example: 'new svc.Secret("openai", { key: "OPENAI_API_KEY", value: config.requireSecret("openaiKey") });',
  inputs: {
    key: {
      type: "string",
      description: "The secret's key, 1 to 256 characters. A new key replaces the secret (new written first).",
      required: true,
      replaceOnChanges: true,
      output: "always",
      example: '"OPENAI_API_KEY"',
      check: {
        message: 'A secret key is a string of 1 to 256 characters, e.g. "OPENAI_API_KEY".',
        minLength: { value: 1, message: "A secret key must not be empty." },
        maxLength: { value: 256, message: "A secret key has at most 256 characters." },
      },
    },
    value: {
      type: "string",
      description:
        "The value. Always stored as a Pulumi secret, and kept in state only as a fingerprint; a change updates in place.",
      required: true,
      secret: true,
      example: 'config.requireSecret("openaiKey")',
      // An empty value is a value (the platform accepts it).
      check: { message: "value is a string (wrap it in pulumi.secret)." },
    },
  },
  outputs: {
    valueFingerprint: {
      type: "string",
      description: "A salted hash of the value (never the value); a secret output.",
      required: true,
      secret: true,
    },
  },
  repository: {
    file: {
      schema: "secrets",
      title: "secrets.yaml",
      description: "Team secrets. Values come only from the environment.",
      listedUnder: {
        key: "secrets",
        schema: (properties) => ({
          type: "object",
          description: "Secret key -> ${env.NAME} reference holding its value, or {value: ${env.NAME}, protect: true}.",
          propertyNames: { pattern: "^[A-Za-z0-9_.-]{1,256}$" },
          additionalProperties: {
            oneOf: [
              SECRET_ENV_REF,
              {
                type: "object",
                additionalProperties: false,
                required: ["value"],
                description: "A secret with options.",
                properties,
              },
            ],
          },
        }),
      },
    },
    keys: {
      value: { schema: SECRET_ENV_REF, input: "value" },
      protect: { schema: protect("secret") },
    },
  },
  importId: {
    id: "SECRET_KEY",
    where: "the secret's key, e.g. `OPENAI_API_KEY`",
    inputs: ["key"],
    declareAfter:
      "`value` (required): it is compared by fingerprint with the platform's, so the same value is no change",
  },
} satisfies KindDefinition;
