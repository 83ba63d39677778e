/** Spec 4.10: the signed-in user. */
import { z } from "zod";
import { User } from "./schemas";
import type { Transport } from "./transport";

export interface UpdateUserInput {
  name?: string;
  handle?: string;
}

export function accountApi(t: Transport) {
  return {
    /** `GET /user/self`. A service token gets 403. */
    getSelf: () => t.json("GET /user/self", {}, User),
    /**
     * `POST /user/self`: only `name` and `handle` may be set. 409 when the handle is taken or
     * reserved, 422 when it is empty, 401 when any other field is sent.
     */
    updateSelf: (input: UpdateUserInput) =>
      t.json("POST /user/self", { body: { json: input }, idempotent: true }, z.unknown()),
  };
}
