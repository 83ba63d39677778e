import { describe, expect, it } from "vitest";
import {
  describeFieldChange,
  formatCount,
  formatFingerprint,
  formatValue,
  lineChangeCounts,
} from "../../../src/reconcile/render/values";
import { SECRETS } from "./fixtures";

describe("line change counts of multi-line text", () => {
  it("counts added and removed lines as a line diff does", () => {
    expect(lineChangeCounts("a\nb\nc\n", "a\nB\nc\nd\n")).toEqual({ added: 2, removed: 1 });
    expect(lineChangeCounts("", "a\nb")).toEqual({ added: 2, removed: 0 });
    expect(lineChangeCounts("a\nb", "")).toEqual({ added: 0, removed: 2 });
  });

  it("does not count a final line break as a line", () => {
    expect(lineChangeCounts("a\nb\n", "a\nb")).toEqual({ added: 0, removed: 0 });
  });

  it("counts moved lines as removed and added when the texts are of ordinary size", () => {
    expect(lineChangeCounts("a\nb\nc", "c\na\nb")).toEqual({ added: 1, removed: 1 });
  });

  it("stays fast and plausible for very long texts", () => {
    const big = Array.from({ length: 3000 }, (_, i) => `line ${i}`);
    const changed = [...big];
    changed[1500] = "changed";
    changed.splice(10, 0, "inserted");
    const started = Date.now();
    expect(lineChangeCounts(big.join("\n"), changed.join("\n"))).toEqual({ added: 2, removed: 1 });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe("formatting values", () => {
  it("quotes strings and prints JSON compactly with sorted keys", () => {
    expect(formatValue("team")).toBe('"team"');
    expect(formatValue({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe('{"a":[1,{"c":3,"d":2}],"b":1}');
    expect(formatValue(undefined)).toBe("(none)");
    expect(formatValue(null)).toBe("null");
    expect(formatValue(42)).toBe("42");
  });

  it("escapes control characters so a value cannot drive the terminal", () => {
    expect(formatValue("red\x1b[31m")).toBe('"red\\u001b[31m"');
  });

  it("shortens long values", () => {
    expect(formatValue("x".repeat(500))).toMatch(/^"x+…" \(500 chars\)$/);
    expect(formatValue(Array.from({ length: 200 }, (_, i) => i)).length).toBeLessThanOrEqual(60);
  });
});

describe("describing a field change", () => {
  it("shows old and new value of an ordinary field", () => {
    expect(
      describeFieldChange({ field: "accessScope", action: "update", secret: false, from: "team", to: "public" }),
    ).toBe('accessScope: "team" → "public"');
  });

  it("shows where two long strings differ, not just their common beginning", () => {
    const base = "https://example.com/" + "a".repeat(100);
    const line = describeFieldChange({
      field: "previewImageUrl",
      action: "update",
      secret: false,
      from: `${base}/old.png`,
      to: `${base}/new.png`,
    });
    expect(line).toContain("old.png");
    expect(line).toContain("new.png");
  });

  it("summarizes multi-line text by lines changed instead of printing it", () => {
    const line = describeFieldChange({
      field: "code",
      action: "update",
      secret: false,
      from: "a\nb\n",
      to: "a\nc\nd\n",
    });
    expect(line).toBe("code: changed (+2 −1 lines)");
    expect(
      describeFieldChange({ field: "code", action: "update", secret: false, from: undefined, to: "a\nb\nc\n" }),
    ).toBe("code: set (3 lines)");
  });

  it("marks fields that force replacement", () => {
    expect(describeFieldChange({ field: "slug", action: "replace", secret: false, from: "a", to: "b" })).toBe(
      'slug: "a" → "b"  # forces replacement',
    );
  });

  it("shows a secret field by its fingerprints only, even when its values were given by mistake", () => {
    const line = describeFieldChange({
      field: "passcode",
      action: "update",
      secret: true,
      from: SECRETS.passcode,
      to: SECRETS.newPasscode,
      fromFingerprint: "hmac-sha256:ab12ab12ab12",
      toFingerprint: "hmac-sha256:cd34cd34cd34",
    });
    expect(line).toBe("passcode: (secret changed, hmac-sha256:ab12ab12ab12 → hmac-sha256:cd34cd34cd34)");
    expect(describeFieldChange({ field: "passcode", action: "update", secret: true, from: SECRETS.passcode })).toBe(
      "passcode: (secret changed)",
    );
    expect(
      describeFieldChange({
        field: "passcode",
        action: "update",
        secret: true,
        toFingerprint: "hmac-sha256:cd34cd34cd34",
      }),
    ).toBe("passcode: (secret set, hmac-sha256:cd34cd34cd34)");
  });

  it("does not show a fingerprint that is not one (a secret value put there by mistake)", () => {
    expect(formatFingerprint(SECRETS.mapbox)).toBe("(sensitive value)");
    expect(formatFingerprint("hmac-sha256:" + "ab".repeat(32))).toBe("hmac-sha256:abababababab…");
  });

  it("never shows a key-less fingerprint, which a guess could be tested against: the change is told without it", () => {
    expect(formatFingerprint("sha256:0a3157b07874")).toBe("(sensitive value)");
    expect(formatFingerprint("hmac-sha256-run:0a3157b07874")).toBe("(sensitive value)");
    const unkeyed = {
      field: "passcode",
      action: "update" as const,
      secret: true,
      fromFingerprint: "sha256:0a3157b07874",
      toFingerprint: "sha256:2ec5e9b359de",
    };
    expect(describeFieldChange(unkeyed)).toBe("passcode: (sensitive value changed)");
    expect(describeFieldChange({ ...unkeyed, fromFingerprint: undefined })).toBe("passcode: (sensitive value set)");
    expect(describeFieldChange({ ...unkeyed, toFingerprint: "hmac-sha256:2ec5e9b359de" })).not.toContain(
      "0a3157b07874",
    );
  });
});

describe("counts", () => {
  it("writes every number as en-US does: thousands grouped, and fractions, huge numbers and -0 as toLocaleString has them", () => {
    const numbers = [
      0,
      -0,
      1,
      12,
      123,
      999,
      1000,
      1001,
      12345,
      100000,
      1234567,
      999999999,
      -1,
      -1000,
      -1234567,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
      1e21,
      2 ** 60,
      1.5,
      1234.5678,
      NaN,
      Infinity,
      -Infinity,
    ];
    for (let n = 0; n < 100000; n += 997) numbers.push(n);
    for (const n of numbers) expect(formatCount(n), String(n)).toBe(n.toLocaleString("en-US"));
  });
});
