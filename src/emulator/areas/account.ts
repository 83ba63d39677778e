/** Spec 4.10: the signed-in user. */
import { z } from "zod";
import type { Area } from "../area";
import { conflict, HttpError, invalid, notFound, unauthorized } from "../http-error";
import { caller, parseBody, type RequestContext } from "../route";

interface UserRow {
  id: string;
  env_id: string | null;
  name: string;
  email: string | null;
  handle: string | null;
  signup_date: string | null;
  handle_last_changed: string | null;
}

function userJson(u: UserRow) {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    handle: u.handle,
    execution_environment_id: u.env_id,
    signup_date: u.signup_date,
    handle_last_changed: u.handle_last_changed,
  };
}

function currentUser(ctx: RequestContext): UserRow {
  const u = ctx.store.get<UserRow>("SELECT * FROM users WHERE id = ?", caller(ctx).userId!);
  if (!u) throw notFound("User not found");
  return u;
}

const UpdateUser = z.object({ name: z.string().min(1).optional(), handle: z.string().optional() });

export const accountArea: Area = {
  name: "account",
  routes: [
    { method: "GET", path: "/user/self", scope: "user", handler: (ctx) => userJson(currentUser(ctx)) },
    {
      method: "POST",
      path: "/user/self",
      scope: "user",
      handler: (ctx) => {
        const body = ctx.jsonBody;
        if (body === null || typeof body !== "object" || Array.isArray(body)) {
          throw new HttpError(422, [{ loc: ["body"], msg: "Input should be a valid dictionary", type: "dict_type" }]);
        }
        const forbiddenFields = Object.keys(body).filter((k) => k !== "name" && k !== "handle");
        if (forbiddenFields.length)
          throw unauthorized(`Field(s) may not be changed: ${forbiddenFields.sort().join(", ")}`);
        const input = parseBody(ctx, UpdateUser);
        const user = currentUser(ctx);
        if (input.handle !== undefined && input.handle !== user.handle) {
          const handle = input.handle;
          if (handle === "") throw invalid("body", "handle", "The handle must not be empty", "string_too_short");
          const reserved = ctx.store.get("SELECT handle FROM reserved_handles WHERE lower(handle) = lower(?)", handle);
          if (reserved) throw conflict(`The handle "${handle}" is reserved`);
          const taken = ctx.store.get(
            "SELECT id FROM users WHERE lower(handle) = lower(?) AND id <> ?",
            handle,
            user.id,
          );
          if (taken) throw conflict(`The handle "${handle}" is taken`);
          ctx.store.run(
            "UPDATE users SET handle = ?, handle_last_changed = ? WHERE id = ?",
            handle,
            ctx.now().toISOString(),
            user.id,
          );
        }
        if (input.name !== undefined) ctx.store.run("UPDATE users SET name = ? WHERE id = ?", input.name, user.id);
        return userJson(currentUser(ctx));
      },
    },
  ],
};
