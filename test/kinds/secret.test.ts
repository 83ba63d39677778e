import { describe, expect, it } from "vitest";
import { secretKind, type SecretState } from "../../src/kinds/secret/resource";
import { secretFingerprint } from "../../src/kinds/field-diff";

const VALUE = "sk-live-SECRET-value-123";
const fp = (v: string) => secretFingerprint(v, "Secret", "value")!;

describe("Secret check", () => {
  it("GIVEN a key and a value THEN they pass unchanged (an empty value is a value)", () => {
    expect(secretKind.check({ key: "API_KEY", value: VALUE })).toEqual({
      inputs: { key: "API_KEY", value: VALUE },
      failures: [],
    });
    expect(secretKind.check({ key: "EMPTY", value: "" }).failures).toEqual([]);
  });

  it("reports every bad input at once, and never shows the value", () => {
    const r = secretKind.check({ key: "", value: 42 });
    expect(r.failures).toEqual([
      { property: "key", reason: 'Invalid key "". A secret key must not be empty.' },
      { property: "value", reason: "Invalid value a secret value. value is a string (wrap it in pulumi.secret)." },
    ]);
    expect(secretKind.check({ key: "k".repeat(257), value: VALUE }).failures[0].reason).toMatch(
      /A secret key has at most 256 characters\.$/,
    );
    expect(secretKind.check({}).failures).toEqual([
      {
        property: "key",
        reason: 'key is required: A secret key is a string of 1 to 256 characters, e.g. "OPENAI_API_KEY".',
      },
      { property: "value", reason: "value is required: value is a string (wrap it in pulumi.secret)." },
    ]);
  });
});

describe("Secret diff", () => {
  const olds: SecretState = { key: "API_KEY", valueFingerprint: fp(VALUE) };

  it("GIVEN the same key and value THEN no change", () => {
    expect(secretKind.diff(olds, { key: "API_KEY", value: VALUE })).toEqual({
      changes: false,
      replaces: [],
      stables: ["key", "value"],
      deleteBeforeReplace: false,
      fields: [],
    });
  });

  it("GIVEN a new value THEN it updates in place, and the diff shows fingerprints only", () => {
    const d = secretKind.diff(olds, { key: "API_KEY", value: "another-SECRET-456" });
    expect(d).toMatchObject({ changes: true, replaces: [], stables: ["key"], deleteBeforeReplace: false });
    expect(d.fields).toEqual([
      {
        field: "value",
        action: "update",
        secret: true,
        fromFingerprint: fp(VALUE),
        toFingerprint: fp("another-SECRET-456"),
      },
    ]);
    expect(JSON.stringify(d)).not.toContain("SECRET");
  });

  it("GIVEN a new key THEN it replaces, new before old", () => {
    const d = secretKind.diff(olds, { key: "OTHER_KEY", value: VALUE });
    expect(d).toMatchObject({ changes: true, replaces: ["key"], stables: ["value"], deleteBeforeReplace: false });
    expect(JSON.stringify(d)).not.toContain(VALUE);
  });
});
