import { describe, expect, it } from "vitest";
import type { FieldChange } from "../../../src/kinds/kind";
import { traitsOf } from "../../../src/reconcile/phases";
import { DIFF_MAX_LINES, unifiedDiffLines, withTextDiffs } from "../../../src/reconcile/render/text-diff";

const lines = (n: number, label = "line") => Array.from({ length: n }, (_, i) => `${label} ${i + 1}`).join("\n") + "\n";
const change = (field: string, from: unknown, to: unknown): FieldChange => ({
  field,
  action: "update",
  secret: false,
  from,
  to,
});
const udfForms = traitsOf("Udf").textFields;

describe("diffs of changed text fields", () => {
  it("shows exactly the changed lines, platform (-) to repository (+), with three lines of context", () => {
    // GIVEN a 20-line file of which lines 10 to 12 were edited on the platform
    const repo = lines(20);
    const platform = repo.replace("line 10\nline 11\nline 12\n", "line 10 (hand)\nline 11 (hand)\nline 12 (hand)\n");
    // WHEN the change is diffed THEN only those lines are removed and added
    const [c] = withTextDiffs([change("code", platform, repo)], udfForms);
    expect(c!.diff).toBe(
      [
        "--- code (platform)",
        "+++ code (repository)",
        "@@ -7,9 +7,9 @@",
        " line 7",
        " line 8",
        " line 9",
        "-line 10 (hand)",
        "-line 11 (hand)",
        "-line 12 (hand)",
        "+line 10",
        "+line 11",
        "+line 12",
        " line 13",
        " line 14",
        " line 15",
      ].join("\n"),
    );
  });

  it(`cuts an object's diffs at ${DIFF_MAX_LINES} lines, then says how many more there are and where the full values are`, () => {
    const [c] = withTextDiffs([change("code", lines(400, "old"), lines(400, "new"))], udfForms);
    const out = c!.diff!.split("\n");
    // 2 file headers + 1 hunk header + 800 changed lines = 803 lines, of which 200 are shown.
    expect(out).toHaveLength(DIFF_MAX_LINES + 1);
    expect(out.slice(0, 4)).toEqual(["--- code (platform)", "+++ code (repository)", "@@ -1,400 +1,400 @@", "-old 1"]);
    expect(out.at(-1)).toBe("… 603 more lines; see from and to in the --json output");
  });

  it("shares the bound among the fields of one object: a field past it gets the note alone", () => {
    const fields = withTextDiffs(
      [change("code", lines(150, "a"), lines(150, "b")), change("metadata", { a: 1 }, { a: 2 })],
      udfForms,
    );
    expect(fields[0]!.diff!.split("\n")).toHaveLength(DIFF_MAX_LINES + 1);
    expect(fields[1]!.diff).toBe("… 7 more lines; see from and to in the --json output");
  });

  it("never diffs a secret field, even with values planted in it", () => {
    const secret: FieldChange = { field: "value", action: "update", secret: true, from: "a\nb\n", to: "a\nc\n" };
    expect(withTextDiffs([secret], { value: "text" })[0]).toEqual(secret);
  });

  it("diffs metadata and cronjob arguments as pretty JSON with sorted keys", () => {
    const [meta] = withTextDiffs([change("metadata", { b: 1, a: "x" }, { a: "y", b: 1 })], udfForms);
    expect(meta!.diff).toBe(
      '--- metadata (platform)\n+++ metadata (repository)\n@@ -1,4 +1,4 @@\n {\n-  "a": "x",\n+  "a": "y",\n   "b": 1\n }',
    );
    const [args] = withTextDiffs([change("udfArgs", undefined, { city: "nyc" })], traitsOf("Cronjob").textFields);
    expect(args!.diff).toBe(
      '--- udfArgs (platform)\n+++ udfArgs (repository)\n@@ -0,0 +1,3 @@\n+{\n+  "city": "nyc"\n+}',
    );
  });

  it("diffs helper modules one after another under their names", () => {
    const from = [{ moduleName: "geo", code: "R = 6371\n" }];
    const to = [{ moduleName: "geo", code: "R = 6371.0\n" }];
    const [h] = withTextDiffs([change("headers", from, to)], udfForms);
    expect(h!.diff).toBe(
      "--- headers (platform)\n+++ headers (repository)\n@@ -1,2 +1,2 @@\n # module geo.py\n-R = 6371\n+R = 6371.0",
    );
  });

  it("diffs any multi-line string, and leaves one-line values and line-ending-only changes to the field line", () => {
    const fields = withTextDiffs(
      [change("description", "a\nb", "a\nc"), change("name", "a", "b"), change("code", "a\r\nb\r\n", "a\nb\n")],
      {},
    );
    expect(fields[0]!.diff).toContain("-b\n\\ No newline at end of file\n+c");
    expect(fields[1]!.diff).toBeUndefined();
    expect(fields[2]!.diff).toBeUndefined();
  });

  it("shows a wholesale rewrite of a long file as one replaced block, cut at the bound", () => {
    const [c] = withTextDiffs([change("code", lines(20_000, "old"), lines(20_000, "new"))], udfForms);
    const out = c!.diff!.split("\n");
    expect(out[2]).toBe("@@ -1,20000 +1,20000 @@");
    expect(out.at(-1)).toBe("… 39,803 more lines; see from and to in the --json output");
  });

  it("cuts very long lines", () => {
    const out = unifiedDiffLines("dashboardBody", `${"x".repeat(5000)}\n`, `${"y".repeat(5000)}\n`);
    expect(out[3]).toBe(`-${"x".repeat(999)}…`);
  });
});
