import { describe, expect, it } from "vitest";
import { Resolver } from "../../../src/repository/variables";

const resolver = () => {
  const r = new Resolver({
    variables: undefined,
    env: { HOME_CITY: "nyc", TOKEN: "t0ps3cret" },
    target: 'target "default"',
  });
  r.useVariables({ city: "sf", n: 3, tags: ["a"], on: true }, 'target "default"');
  return r;
};

describe("variable references", () => {
  it("keeps the type of a whole-string reference", () => {
    expect(resolver().resolve("${var.n}")).toEqual({ ok: true, value: 3 });
    expect(resolver().resolve("${var.tags}")).toEqual({ ok: true, value: ["a"] });
    expect(resolver().resolve("${var.on}")).toEqual({ ok: true, value: true });
  });

  it("replaces references inside a string with their text", () => {
    expect(resolver().resolve("from ${env.HOME_CITY} to ${var.city} x${var.n}")).toEqual({
      ok: true,
      value: "from nyc to sf x3",
    });
  });

  it("writes $${ as a literal ${", () => {
    expect(resolver().resolve("$${var.city} is ${var.city}")).toEqual({ ok: true, value: "${var.city} is sf" });
  });

  it("explains unknown variables, missing environment variables and malformed references", () => {
    expect(resolver().resolve("${var.cty}")).toEqual({
      ok: false,
      message:
        'unknown variable "cty" in ${var.cty}; defined for target "default": city, n, on, tags; did you mean city?',
    });
    expect(resolver().resolve("${env.NOPE}")).toEqual({
      ok: false,
      message: "environment variable NOPE is not set (referenced as ${env.NOPE})",
    });
    expect(resolver().resolve("a ${city} b")).toEqual({
      ok: false,
      message: 'unknown reference "${city}": expected ${var.NAME} or ${env.NAME} (write $${ for a literal "${")',
    });
    expect(resolver().resolve("a ${var.city")).toMatchObject({
      ok: false,
      message: expect.stringContaining("unclosed reference"),
    });
    expect(resolver().resolve("x ${var.tags}")).toMatchObject({
      ok: false,
      message: expect.stringContaining("can only be used as a whole value"),
    });
  });

  it("accepts only one ${env.NAME} for a secret and never repeats what it found", () => {
    const r = resolver();
    expect(r.resolveSecret("${env.TOKEN}", "passcode")).toEqual({ ok: true, value: "t0ps3cret", envName: "TOKEN" });
    for (const bad of ["literal-s3cret", "${var.city}", "x${env.TOKEN}", 42]) {
      const out = r.resolveSecret(bad, "passcode");
      expect(out.ok).toBe(false);
      expect(JSON.stringify(out)).not.toContain(String(bad));
    }
    expect([...r.secretEnvNames]).toEqual(["TOKEN"]);
  });

  it("does not let variables refer to each other", () => {
    const r = new Resolver({ variables: undefined, env: {}, target: 'target "default"', allowVariables: false });
    expect(r.resolve("${var.city}")).toMatchObject({
      ok: false,
      message: expect.stringContaining("variables cannot refer to other variables"),
    });
  });
});
