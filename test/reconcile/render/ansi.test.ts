/** svc-iac's colours reach the terminal; an attacker's escape sequences, colours included, never do. */
import { describe, expect, it } from "vitest";
import { painter, terminalOutput } from "../../../src/reconcile/render/ansi";

describe("GIVEN output that mixes svc-iac's colours with names that hold escape sequences", () => {
  it("WHEN it is written THEN only the palette's own sequences stay raw", () => {
    const out = terminalOutput(
      "\x1b[32m+ create\x1b[0m udf.a/\x1b]0;pwned\x07\x1b[2J\x1b[8m\rx\u202ey\u2066\x9b\x7f\n",
    );
    expect(out).toBe(
      "\x1b[32m+ create\x1b[0m udf.a/\\x1b]0;pwned\\x07\\x1b[2J\\x1b[8m\\rx\\u202ey\\u2066\\u009b\\u007f\n",
    );
  });

  it("WHEN the painter colours a name holding a colour code THEN the code is shown as text", () => {
    const paint = painter(true);
    expect(paint("green", "a\x1b[0m\x1b[8mb")).toBe("\x1b[32ma\\x1b[0m\\x1b[8mb\x1b[0m");
  });

  it("WHEN a JSON document holds a C1 character or an override THEN it stays the same JSON", () => {
    const doc = JSON.stringify({ name: "a\x85b\u202ec\x1b" });
    expect(JSON.parse(terminalOutput(doc))).toEqual({ name: "a\x85b\u202ec\x1b" });
  });
});
