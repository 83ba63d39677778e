import { describe, expect, it } from "vitest";
import { REDACTED, scrubDeep } from "../../src/api/errors";

const SECRET = "postgres://app:hunter2@db/prod";

describe("scrubDeep: secret values out of a command's result", () => {
  it("GIVEN a result holding a secret in a string, a key and URL-encoded THEN each is [REDACTED] and the rest is equal", () => {
    const result = {
      plan: {
        steps: [
          { address: "udf.a/b", fields: [{ field: "code", after: `url = "${SECRET}"` }] },
          { address: "udf.a/c", fields: [] },
        ],
      },
      [SECRET]: 1,
      link: `https://x/?db=${encodeURIComponent(SECRET)}`,
    };
    const out = scrubDeep(result, [SECRET]);
    expect(JSON.stringify(out)).not.toContain(SECRET);
    expect(JSON.stringify(out)).not.toContain(encodeURIComponent(SECRET));
    expect(out.plan.steps[0]!.fields[0]!.after).toBe(`url = "${REDACTED}"`);
    expect(Object.keys(out)).toContain(REDACTED);
    expect(out.link).toBe(`https://x/?db=${REDACTED}`);
    // The original is left as it was.
    expect(result.plan.steps[0]!.fields[0]!.after).toContain(SECRET);
  });

  it("GIVEN a result without a secret THEN it is returned itself, not copied (an apply's result of 10,000 creates)", () => {
    const steps = Array.from({ length: 10_000 }, (_, i) => ({
      address: `udf.c/u${i}`,
      fields: [{ field: "code", after: `def udf(): return ${i}\n` }],
    }));
    const result = { plan: { steps }, when: new Date(0) };
    expect(scrubDeep(result, [SECRET, "abc"])).toBe(result);
  });

  it("GIVEN one step holding the secret THEN only its branch is copied; the other steps and class instances are the same objects", () => {
    const when = new Date(0);
    const steps = [
      { address: "udf.a/b", after: SECRET },
      { address: "udf.a/c", after: "x" },
    ];
    const out = scrubDeep({ steps, when }, [SECRET]);
    expect(out.steps).not.toBe(steps);
    expect(out.steps[0]!.after).toBe(REDACTED);
    expect(out.steps[1]).toBe(steps[1]);
    expect(out.when).toBe(when);
  });
});
