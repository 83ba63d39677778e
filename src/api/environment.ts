/**
 * Spec 4.6: the team's execution environment, its real-time usage counters and its service
 * accounts. Environment reads accept a Bearer or a service token; service accounts can only be
 * managed with a Bearer token (a service token gets 403).
 */
import { z } from "zod";
import { ExecutionEnvironment, ServiceAccount, UsageCounters } from "./schemas";
import type { Transport } from "./transport";

/** A service account as returned by creation: the only time its token is visible. */
export type NewServiceAccount = ServiceAccount & { token: string };

const CreatedServiceAccount = ServiceAccount.extend({ token: z.string() });

/** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
export type DatePrefix = string;

export function environmentApi(t: Transport) {
  return {
    /**
     * `GET /execution-env/self`: the caller's environment with its members, buckets and linked
     * repositories.
     * @throws ApiError 401 without valid credentials.
     */
    getSelf: () => t.json("GET /execution-env/self", {}, ExecutionEnvironment),

    /**
     * `GET /execution-env/self/realtime/usage`: real-time usage counters (2.8), cumulative, or
     * summed over the days starting with `datePrefix` (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`).
     * @throws ApiError 422 (`validation_failed`, loc `["query","date_prefix"]`) for another
     *   prefix form; 401 without valid credentials.
     */
    usage: (datePrefix?: DatePrefix) =>
      t.json("GET /execution-env/self/realtime/usage", { query: { date_prefix: datePrefix } }, UsageCounters),

    /**
     * `GET /execution-env/self/service-account`: the environment's service accounts, without tokens.
     * @throws ApiError 403 for a service token; 401 without credentials.
     */
    listServiceAccounts: () => t.json("GET /execution-env/self/service-account", {}, z.array(ServiceAccount)),

    /**
     * `GET /execution-env/self/service-account/by-id/{id}`: one service account, without token.
     * @throws ApiError 404 when absent or another team's; 403 for a service token; 401.
     */
    getServiceAccount: (id: string) =>
      t.json("GET /execution-env/self/service-account/by-id/{id}", { params: { id } }, ServiceAccount),

    /**
     * `POST /execution-env/self/service-account/new`: creates a service account and returns it
     * with its token, which is never retrievable later: store it at once. Not retried (a replay
     * would create a second account).
     * @throws ApiError 422 when name is missing or empty; 403 for a service token; 401.
     */
    createServiceAccount: async (name: string): Promise<NewServiceAccount> => {
      const sa = await t.json(
        "POST /execution-env/self/service-account/new",
        { body: { json: { name } } },
        CreatedServiceAccount,
      );
      return sa as NewServiceAccount;
    },

    /**
     * `DELETE /execution-env/self/service-account/by-id/{id}`: deletes a service account and returns
     * the deleted record; its token stops working immediately.
     * @throws ApiError 404 when absent or another team's; 403 for a service token; 401.
     */
    deleteServiceAccount: (id: string) =>
      t.json("DELETE /execution-env/self/service-account/by-id/{id}", { params: { id } }, ServiceAccount),
  };
}
