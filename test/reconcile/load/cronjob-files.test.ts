import { describe, expect, it } from "vitest";
import { cronProblem } from "../../../src/reconcile/load/cronjob-files";

describe("the loader's schedule check", () => {
  it("accepts one minute value and the usual field syntax", () => {
    for (const ok of ["0 6 * * 1-5", "59 */2 1,15 JAN-MAR MON", "@daily"]) expect(cronProblem(ok)).toBeUndefined();
  });

  it("refuses anything but exactly one minute value, explaining the platform's rule", () => {
    for (const minute of ["*", "*/15", "0,30", "0-5", "60"]) {
      expect(cronProblem(`${minute} * * * *`)).toContain(
        "expected exactly one minute value (a whole number 0-59): the platform runs a cronjob at exactly one minute of each matching hour",
      );
    }
  });

  it("counts the fields", () => {
    expect(cronProblem("0 6 * *")).toBe(
      'found 4 fields in "0 6 * *", expected 5: "minute hour day-of-month month day-of-week", e.g. "0 6 * * 1-5"',
    );
  });

  it("reports the other fields' errors from the full parser", () => {
    expect(cronProblem("0 25 * * *")).toContain("25 is out of range 0-23");
  });
});
