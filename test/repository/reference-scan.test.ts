/** Finding `${var.NAME}` / `${env.NAME}` references in a string value (`$${` is a literal). */
import { describe, expect, it } from "vitest";
import { envNamesIn, firstReference } from "../../src/repository/variables";

describe("firstReference", () => {
  it("GIVEN references among other text THEN the first valid one is found, as written", () => {
    expect(firstReference("a ${x} ${var.b} ${env.C}")).toBe("${var.b}");
    expect(firstReference("${env.${var.a}")).toBe("${var.a}");
    expect(firstReference("$${var.a} ${env.B}")).toBe("${env.B}");
    expect(firstReference("no reference, ${unclosed")).toBeUndefined();
    expect(firstReference("$${var.a}")).toBeUndefined();
  });

  it("GIVEN 150,000 unclosed starts before one brace THEN it answers as for a short value", () => {
    expect(firstReference(`${"${env.".repeat(150_000)}}`)).toBeUndefined();
    expect(firstReference(`${"${env.".repeat(150_000)}var.x}`)).toBeUndefined();
    expect(firstReference(`${"${x".repeat(1_000)}} \${var.y}`)).toBe("${var.y}");
  });
});

describe("envNamesIn", () => {
  it("GIVEN a value THEN the environment variables it reads, in order, literals left out", () => {
    expect(envNamesIn("pr_${env.PR_NUMBER}_$${env.X}")).toEqual(["PR_NUMBER"]);
    expect(envNamesIn("${env.${env.A} ${env.B} ${var.C} ${env.D")).toEqual(["A", "B"]);
    expect(envNamesIn(`${"${env.".repeat(150_000)}}`)).toEqual([]);
  });
});
