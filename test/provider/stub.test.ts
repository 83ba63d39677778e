/**
 * The serialized provider stub is one object per kind: the SDK caches the serialized `__provider`
 * per provider object, so thousands of resources of a kind cost one serialization, not thousands.
 */
import { describe, expect, it } from "vitest";
import { serializeProvider } from "../helpers/provider-host";

const { providerFor } = require("../../dist/provider/stub");

describe("the provider stub", () => {
  it("is the same object for every resource of a kind, and another object for another kind", () => {
    expect(providerFor("Udf")).toBe(providerFor("Udf"));
    expect(providerFor("Canvas")).toBe(providerFor("Canvas"));
    expect(providerFor("Udf")).not.toBe(providerFor("Canvas"));
  });

  it("still serializes to a stub that captures only its kind's name", async () => {
    const text = await serializeProvider(providerFor("Udf"));
    expect(text).toContain('"Udf"');
    expect(text).not.toContain("Canvas");
    expect(text).toContain('require("svc-iac/provider-runtime")');
  });
});
