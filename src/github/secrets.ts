/**
 * Token publishers for GitHub Actions: the log mask (first, so a new token is hidden before
 * anything could print it) and GitHub Actions secrets, written as GitHub requires: sealed with
 * libsodium's `crypto_box_seal` to the repository's (or environment's) public key, base64-encoded,
 * sent with the key's id. Only the sealed value ever leaves the process.
 */
import type { Octokit } from "@octokit/rest";
import type { PublishedToken, TokenPublisher } from "../reconcile/commands/command-types";
import { addMask } from "./workflow-commands";
import { SvcError } from "../errors";

/**
 * Seals `value` to a base64 Curve25519 public key, as GitHub's secrets API expects.
 * @example
 * const encrypted_value = await sealSecret(key.key, token);
 */
export async function sealSecret(publicKeyBase64: string, value: string): Promise<string> {
  // Loaded here: its WebAssembly is compiled on load, and only a run that writes a secret needs it.
  const sodium: typeof import("libsodium-wrappers") = require("libsodium-wrappers");
  await sodium.ready;
  const key = sodium.from_base64(publicKeyBase64, sodium.base64_variants.ORIGINAL);
  const sealed = sodium.crypto_box_seal(sodium.from_string(value), key);
  return sodium.to_base64(sealed, sodium.base64_variants.ORIGINAL);
}

/** A publisher that masks every new token in the job log (`::add-mask::`). */
export function maskPublisher(write: (text: string) => void): TokenPublisher {
  return {
    name: "GitHub Actions log mask",
    async publish(token: PublishedToken) {
      write(addMask(token.token));
    },
  };
}

export interface SecretsDestination {
  owner: string;
  repo: string;
  /** An environment's secrets instead of the repository's. */
  environment?: string;
}

/** GitHub's rule for secret names: letters, digits and `_`, not starting with a digit or `GITHUB_`. */
export function checkSecretName(name: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || /^GITHUB_/i.test(name)) {
    throw new SvcError(
      "secret_name_invalid",
      `"${name}" cannot be a GitHub secret name; expected letters, digits and "_", not starting with a digit or "GITHUB_".`,
    );
  }
}

/**
 * A publisher that writes each new token to a GitHub Actions secret named after
 * {@link PublishedToken.name}. The public key is fetched once per publisher. The token needs
 * write access to secrets (a fine-grained PAT or GitHub App token with "Secrets: write";
 * a workflow's `GITHUB_TOKEN` cannot write secrets).
 * @example
 * const publishers = [maskPublisher(w), githubSecretsPublisher(octokit, { owner: "acme", repo: "infra", environment: "prod" })];
 */
export function githubSecretsPublisher(octokit: Octokit, dest: SecretsDestination): TokenPublisher {
  let publicKey: Promise<{ key_id: string; key: string }> | undefined;
  const where = dest.environment
    ? `environment "${dest.environment}" of ${dest.owner}/${dest.repo}`
    : `${dest.owner}/${dest.repo}`;
  const fetchKey = async () => {
    const { data } = dest.environment
      ? await octokit.rest.actions.getEnvironmentPublicKey({
          owner: dest.owner,
          repo: dest.repo,
          environment_name: dest.environment,
        })
      : await octokit.rest.actions.getRepoPublicKey({ owner: dest.owner, repo: dest.repo });
    return { key_id: data.key_id, key: data.key };
  };
  return {
    name: `GitHub Actions secrets of ${where}`,
    async publish(token: PublishedToken) {
      checkSecretName(token.name);
      publicKey ??= fetchKey();
      // A failed key request is retried by the next token rather than remembered.
      const key = await publicKey.catch((err: unknown) => {
        publicKey = undefined;
        throw err;
      });
      const encrypted_value = await sealSecret(key.key, token.token);
      if (dest.environment) {
        await octokit.rest.actions.createOrUpdateEnvironmentSecret({
          owner: dest.owner,
          repo: dest.repo,
          environment_name: dest.environment,
          secret_name: token.name,
          encrypted_value,
          key_id: key.key_id,
        });
      } else {
        await octokit.rest.actions.createOrUpdateRepoSecret({
          owner: dest.owner,
          repo: dest.repo,
          secret_name: token.name,
          encrypted_value,
          key_id: key.key_id,
        });
      }
    },
  };
}
