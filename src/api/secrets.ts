/**
 * Spec 4.2: user secrets. All calls act on the signed-in user (Bearer token); a service token gets
 * 403, and so does a basic-tier user (a paid plan is required). Secret values are passed as
 * request secrets, so they never appear in an {@link ApiError}'s message, path or detail.
 */
import { z } from "zod";
import { Secret } from "./schemas";
import type { Transport } from "./transport";

const SecretKeys = z.looseObject({ secrets: z.array(z.string()) });
const KeyOnly = z.looseObject({ key: z.string() });
const Ok = z.looseObject({ ok: z.literal(true) });

export function secretsApi(t: Transport) {
  return {
    /**
     * `GET /secrets/self/user`: the keys of the user's secrets (values are not listed).
     * @throws ApiError 401 without credentials; 403 for a service token or a basic-tier user.
     */
    list: async (): Promise<string[]> => (await t.json("GET /secrets/self/user", {}, SecretKeys)).secrets,

    /**
     * `GET /secrets/self/user/{key}`: one secret with its decrypted value.
     * @throws ApiError 404 (`not_found`) when the key is absent; 401; 403 as for {@link list}.
     */
    get: async (key: string): Promise<Secret> => {
      const s = await t.json("GET /secrets/self/user/{key}", { params: { key } }, Secret);
      return { key: s.key, value: s.value };
    },

    /**
     * `POST /secrets/self/user`: creates a secret (201). Not retried: a replay would answer 409.
     * @throws ApiError 409 (`conflict`) when the key exists (use {@link put} to change it);
     *   422 when key or value is not a string; 401; 403 as for {@link list}.
     */
    create: async (key: string, value: string): Promise<{ key: string }> => {
      const r = await t.json("POST /secrets/self/user", { body: { json: { key, value } }, secrets: [value] }, KeyOnly);
      return { key: r.key };
    },

    /**
     * `PUT /secrets/self/user/{key}`: creates or replaces a secret (upsert; safe to retry).
     * @throws ApiError 422 when value is not a string; 401; 403 as for {@link list}.
     */
    put: async (key: string, value: string): Promise<{ key: string }> => {
      const r = await t.json(
        "PUT /secrets/self/user/{key}",
        { params: { key }, body: { json: { value } }, secrets: [value] },
        KeyOnly,
      );
      return { key: r.key };
    },

    /**
     * `DELETE /secrets/self/user/{key}`: removes a secret. Deleting an absent key succeeds too (the
     * spec lists no 404 here; the emulator treats delete as idempotent), so retries are harmless.
     * @throws ApiError 401; 403 as for {@link list}.
     */
    delete: async (key: string): Promise<void> => {
      await t.json("DELETE /secrets/self/user/{key}", { params: { key } }, Ok);
    },
  };
}
