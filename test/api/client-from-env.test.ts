import { describe, expect, it } from "vitest";
import { clientFromEnv } from "../../src/api/client";
import { useEmulator } from "../helpers/emulator";

const fx = useEmulator();

describe("clientFromEnv", () => {
  it("GIVEN SVC_BASE_URL and SVC_TOKEN THEN it acts as that user", async () => {
    const c = clientFromEnv({ SVC_BASE_URL: fx.emu.baseUrl, SVC_TOKEN: fx.emu.tokens.user_token });
    expect((await c.account.getSelf()).handle).toBe("dana");
    await c.close();
  });

  it("GIVEN SVC_SERVICE_TOKEN and SVC_UDF_BASE_URL THEN it acts as the environment and reaches the UDF host", async () => {
    const c = clientFromEnv({
      SVC_BASE_URL: fx.emu.baseUrl,
      SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
      SVC_SERVICE_TOKEN: fx.emu.tokens.service_token,
    });
    expect((await c.environment.getSelf()).id).toBe("env-demo");
    expect(c.transport.options.udfBaseUrl).toBe(fx.emu.udfBaseUrl);
    await expect(c.account.getSelf()).rejects.toMatchObject({ status: 403 });
    await c.close();
  });

  it("says which variable is missing", () => {
    expect(() => clientFromEnv({ SVC_TOKEN: "x" })).toThrow("SVC_BASE_URL is not set");
    expect(() => clientFromEnv({ SVC_BASE_URL: fx.emu.baseUrl, SVC_TOKEN: "" })).toThrow(
      "Neither SVC_TOKEN nor SVC_SERVICE_TOKEN is set",
    );
  });
});
