import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors";
import { failure, useEmulator } from "../helpers/emulator";

const fx = useEmulator();

describe("account (4.10)", () => {
  it("GIVEN a user token WHEN reading /user/self THEN the seeded user comes back", async () => {
    const me = await fx.user.account.getSelf();
    expect(me).toMatchObject({
      name: "Dana Demo",
      handle: "dana",
      email: "dana@demo.example",
      execution_environment_id: "env-demo",
    });
    expect(me.signup_date).toBeTruthy();
  });

  it("GIVEN a service token WHEN reading /user/self THEN 403", async () => {
    const e = await failure(fx.service.account.getSelf());
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 403, code: "forbidden", method: "GET", path: "/user/self" });
    expect(typeof e.detail).toBe("string");
  });

  it("GIVEN no credentials WHEN reading /user/self THEN 401", async () => {
    const e = await failure(fx.anon.account.getSelf());
    expect(e).toMatchObject({ status: 401, code: "unauthorized", detail: "Not authenticated" });
  });

  it("changes the name and handle, and records when the handle changed", async () => {
    await fx.basic.account.updateSelf({ name: "Basil B", handle: "basil2" });
    const me = await fx.basic.account.getSelf();
    expect(me).toMatchObject({ name: "Basil B", handle: "basil2" });
    expect(me.handle_last_changed).toBeTruthy();
  });

  it("refuses a taken handle (409), a reserved one (409), an empty one (422) and any other field (401)", async () => {
    expect(await failure(fx.user.account.updateSelf({ handle: "olga" }))).toMatchObject({
      status: 409,
      detail: 'The handle "olga" is taken',
    });
    expect(await failure(fx.user.account.updateSelf({ handle: "admin" }))).toMatchObject({
      status: 409,
      detail: 'The handle "admin" is reserved',
    });
    const empty = await failure(fx.user.account.updateSelf({ handle: "" }));
    expect(empty).toMatchObject({ status: 422, code: "validation_failed" });
    expect(empty.detail).toEqual([
      { loc: ["body", "handle"], msg: "The handle must not be empty", type: "string_too_short" },
    ]);
    const other = await failure(fx.user.account.updateSelf({ email: "x@y.z" } as never));
    expect(other).toMatchObject({ status: 401, detail: "Field(s) may not be changed: email" });
    expect((await fx.user.account.getSelf()).handle).toBe("dana");
  });
});
