/**
 * The `tests:` list of a UDF's `<slug>.yaml`: post-deploy checks that `svc-iac test` runs on the
 * target's real-time instance. Each entry calls the deployed UDF with `args` and expects either a
 * result matching `expect` (see `src/reconcile/testing/expect-match.ts`) or an error
 * (`expect_error: true`). Variables are resolved in `args` and `expect` like anywhere else.
 */
import type { UdfTest } from "../../model/desired";
import { MapReader, joinPath, plainValue, report, type ReadContext } from "../../repository/fields";
import { UDF_TEST_KEYS } from "./keys";
import { locate } from "../../repository/yaml-source";

const EXPECTED_LIST = 'a list of tests: [{name: "nyc", args: {city: nyc}, expect: {rows: 3}}]';

/** Reads `tests:` of one UDF; wrong shapes are reported with their location and skipped. */
export function readUdfTests(ctx: ReadContext, top: MapReader, udf: { canvas?: string; slug: string }): UdfTest[] {
  const items = top.list("tests", EXPECTED_LIST) ?? [];
  const out: UdfTest[] = [];
  const names = new Map<string, number>();
  items.forEach((item, index) => {
    const t = new MapReader(ctx, item.node, item.path, UDF_TEST_KEYS);
    if (!t.isMapping) return;
    const source = locate(ctx.src, item.node, item.path);
    const name =
      t.string("name", { pattern: /\S/, expected: 'a non-empty name, e.g. "nyc has listings"' }) ?? `#${index + 1}`;
    if (t.has("name")) {
      const first = names.get(name);
      if (first !== undefined)
        t.fail(
          "name",
          `duplicate test name "${name}" (first at line ${first}); names must be unique within a UDF's tests`,
        );
      else names.set(name, source.line);
    }
    const args = t.has("args")
      ? t.object("args", "a mapping of the UDF's parameters, e.g. {city: nyc, limit: 10}")
      : {};
    const expectError = t.boolean("expect_error");
    const expected = expectation(ctx, t, item.path, expectError);
    if (args === undefined || expected === undefined) return;
    out.push({
      address: udf.canvas === undefined ? `udf.${udf.slug}` : `udf.${udf.canvas}/${udf.slug}`,
      ...(udf.canvas === undefined ? {} : { canvas: udf.canvas }),
      slug: udf.slug,
      name,
      args,
      ...expected,
      source,
    });
  });
  return out;
}

/** Exactly one of `expect:` (any value, null included) and `expect_error: true`. */
function expectation(
  ctx: ReadContext,
  t: MapReader,
  path: string,
  expectError: boolean | undefined,
): Pick<UdfTest, "expect" | "expectError"> | undefined {
  const hasExpect = t.has("expect");
  if (hasExpect && expectError === true) {
    t.fail(
      "expect_error",
      "found both expect: and expect_error: true, expected one of them: a test either expects a result or expects the run to fail",
    );
    return undefined;
  }
  if (expectError === true) return { expectError: true };
  if (!hasExpect) {
    if (expectError === undefined && t.has("expect_error")) return undefined; // wrong type, reported
    report(
      ctx,
      t.node,
      joinPath(path, "expect"),
      'required key "expect" is missing; expected expect: (a subset of the JSON result) or expect_error: true',
    );
    return undefined;
  }
  const r = plainValue(ctx, t.valueNode("expect"), joinPath(path, "expect"));
  return r.ok ? { expect: r.value, expectError: false } : undefined;
}
