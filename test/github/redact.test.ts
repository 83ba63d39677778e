import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/github/redact";

describe("redactor", () => {
  it("redacts the values of secret-looking environment variables", () => {
    const r = Redactor.fromEnv({
      SVC_TOKEN: "svc_abcdef123",
      DB_PASSWORD: "hunter2hunter2",
      MAPBOX_API_KEY: "pk.123456789",
      HOME: "/home/runner",
    });
    expect(r.apply("svc_abcdef123 hunter2hunter2 pk.123456789 /home/runner")).toBe(
      "[REDACTED] [REDACTED] [REDACTED] /home/runner",
    );
  });

  it("leaves ordinary input values alone, even when the input's name mentions secrets", () => {
    const r = Redactor.fromEnv({ INPUT_GITHUB_SECRETS: "repository", INPUT_SECRETS_TOKEN: "github_pat_12345678" });
    expect(r.apply("differs from the repository; github_pat_12345678")).toBe("differs from the repository; [REDACTED]");
  });

  it("redacts tokens learned during the run, but not short values", () => {
    const r = new Redactor();
    r.add("svc_sa_newtoken_1");
    r.add("true");
    expect(r.apply("new token svc_sa_newtoken_1 is true")).toBe("new token [REDACTED] is true");
  });
});
