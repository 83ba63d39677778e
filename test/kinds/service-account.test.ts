import { describe, expect, it } from "vitest";
import { accountName, serviceAccountKind, type ServiceAccountState } from "../../src/kinds/service-account/resource";

describe("ServiceAccount check", () => {
  it("GIVEN a name and any rotation value THEN they pass unchanged", () => {
    expect(serviceAccountKind.check({ name: "ci-deployer" })).toEqual({
      inputs: { name: "ci-deployer" },
      failures: [],
    });
    expect(serviceAccountKind.check({ name: "ci", rotation: { month: "2025-06", n: 2 } }).failures).toEqual([]);
  });

  it("reports an empty, missing or too long name with the expected form", () => {
    expect(serviceAccountKind.check({ name: "" }).failures).toEqual([
      { property: "name", reason: 'Invalid name "". A service account name must not be empty.' },
    ]);
    expect(serviceAccountKind.check({}).failures).toEqual([
      { property: "name", reason: 'name is required: A service account name is a string, e.g. "ci-deployer".' },
    ]);
    expect(serviceAccountKind.check({ name: "x".repeat(184) }).failures[0].reason).toMatch(
      /A service account name has at most 183 characters \(the platform allows 200, and svc-iac appends a 17-character tag\)\.$/,
    );
  });
});

describe("ServiceAccount key", () => {
  it("is the platform name: the name tagged with a hash of the rotation", () => {
    expect(accountName({ name: "ci" })).toMatch(/^ci \[svc-iac [0-9a-f]{6}\]$/);
    expect(accountName({ name: "ci", rotation: 1 })).not.toBe(accountName({ name: "ci", rotation: 2 }));
    expect(accountName({ name: "ci", rotation: { a: 1, b: 2 } })).toBe(
      accountName({ name: "ci", rotation: { b: 2, a: 1 } }),
    );
    expect(serviceAccountKind.key({ name: "ci", rotation: "r" })).toBe(accountName({ name: "ci", rotation: "r" }));
  });
});

describe("ServiceAccount diff", () => {
  const olds: ServiceAccountState = {
    name: "ci",
    rotation: 1,
    id: "sa1",
    accountName: accountName({ name: "ci", rotation: 1 }),
    token: "svc_sa_TOKEN",
    createdAt: "t",
  };

  it("GIVEN the same inputs THEN no change, and the token is not in the diff", () => {
    const d = serviceAccountKind.diff(olds, { name: "ci", rotation: 1 });
    expect(d).toEqual({
      changes: false,
      replaces: [],
      stables: ["name", "rotation"],
      deleteBeforeReplace: false,
      fields: [],
    });
  });

  it.each([
    ["name", { name: "ci2", rotation: 1 }],
    ["rotation", { name: "ci", rotation: 2 }],
  ])("GIVEN a new %s THEN it replaces, new before old", (field, news) => {
    const d = serviceAccountKind.diff(olds, news);
    expect(d).toMatchObject({ changes: true, replaces: [field], deleteBeforeReplace: false });
    expect(JSON.stringify(d)).not.toContain("svc_sa_TOKEN");
  });

  it("GIVEN a rotation removed THEN it replaces", () => {
    expect(serviceAccountKind.diff(olds, { name: "ci" }).replaces).toEqual(["rotation"]);
  });
});
