import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadRepository } from "../../../src/reconcile/load/index";
import { formatLoadError } from "../../../src/model/desired";

describe("tests: in a UDF's yaml", () => {
  it("GIVEN valid tests THEN the project holds them by UDF address, with resolved variables and their location", async () => {
    const r = await loadRepository("test/fixtures/udf-tests", { env: { SMOKE_KEY: "smoke-key" } });
    if (!r.ok) throw new Error(r.errors.map(formatLoadError).join("\n"));
    expect(r.project.tests).toEqual([
      {
        address: "udf.checks/boom",
        canvas: "checks",
        slug: "boom",
        name: "#1",
        args: {},
        expectError: true,
        source: { file: "canvases/checks/boom.yaml", line: 2, column: 5, path: "tests[0]" },
      },
      {
        address: "udf.checks/greet",
        canvas: "checks",
        slug: "greet",
        name: "default greeting",
        args: {},
        expect: { greeting: "hello world", meta: { lang: "en" } },
        expectError: false,
        source: { file: "canvases/checks/greet.yaml", line: 6, column: 5, path: "tests[0]" },
      },
      {
        address: "udf.checks/greet",
        canvas: "checks",
        slug: "greet",
        name: "a variable name",
        args: { name: "ada", repeat: 2 },
        expect: { greeting: "hello ada hello ada", length: 3, letters: ["a", "d"] },
        expectError: false,
        source: { file: "canvases/checks/greet.yaml", line: 10, column: 5, path: "tests[1]" },
      },
      {
        address: "udf.checks/greet",
        canvas: "checks",
        slug: "greet",
        name: "a name that is not text",
        args: { name: 5 },
        expectError: true,
        source: { file: "canvases/checks/greet.yaml", line: 16, column: 5, path: "tests[2]" },
      },
    ]);
  });

  it("GIVEN tests do not change what is planned THEN the UDF's inputs hold no trace of them", async () => {
    const r = await loadRepository("test/fixtures/udf-tests", { env: { SMOKE_KEY: "smoke-key" } });
    if (!r.ok) throw new Error("expected a valid load");
    const greet = r.project.objects.find((o) => o.address === "udf.checks/greet")!;
    expect(JSON.stringify(greet)).not.toContain("tests");
  });

  it("GIVEN wrong shapes THEN every one is reported at file:line:column, saying what was found and expected", async () => {
    const r = await loadRepository("test/fixtures/error-udf-tests");
    if (r.ok) throw new Error("expected errors");
    expect(r.errors.map(formatLoadError)).toEqual([
      "canvases/checks/one.yaml:2:11: tests[0].args: found a list, expected a mapping of the UDF's parameters, e.g. {city: nyc, limit: 10}",
      'canvases/checks/one.yaml:4:5: tests[1].expect: required key "expect" is missing; expected expect: (a subset of the JSON result) or expect_error: true',
      "canvases/checks/one.yaml:8:19: tests[2].expect_error: found both expect: and expect_error: true, expected one of them: a test either expects a result or expects the run to fail",
      'canvases/checks/one.yaml:9:5: tests[3]: unknown key "expect_eror"; expected one of name, args, expect, expect_error; did you mean expect_error?',
      'canvases/checks/one.yaml:9:5: tests[3].expect: required key "expect" is missing; expected expect: (a subset of the JSON result) or expect_error: true',
      'canvases/checks/one.yaml:10:5: tests[4]: found "just a string", expected a mapping with the keys name, args, expect, expect_error',
      'canvases/checks/one.yaml:13:11: tests[6].name: duplicate test name "twice" (first at line 11); names must be unique within a UDF\'s tests',
      'canvases/checks/one.yaml:15:11: tests[7].name: found "", expected a non-empty name, e.g. "nyc has listings"',
      'canvases/checks/one.yaml:16:19: tests[7].expect_error: found "yes", expected true or false',
      'canvases/checks/two.yaml:2:3: tests: found a mapping, expected a list of tests: [{name: "nyc", args: {city: nyc}, expect: {rows: 3}}]',
    ]);
  });
});

describe("the udf schema's tests:", () => {
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(
    JSON.parse(readFileSync("schemas/udf.schema.json", "utf8")),
  );
  const yaml = (file: string) => parse(readFileSync(file, "utf8"));

  it("accepts the valid fixture's tests", () => {
    expect(validate(yaml("test/fixtures/udf-tests/canvases/checks/greet.yaml")), JSON.stringify(validate.errors)).toBe(
      true,
    );
    expect(validate(yaml("test/fixtures/udf-tests/canvases/checks/boom.yaml"))).toBe(true);
  });

  it("refuses what the loader refuses: a list of args, no expectation, both, an unknown key, not a list", () => {
    for (const tests of [
      [{ args: [1], expect: 1 }],
      [{ name: "x" }],
      [{ expect: 1, expect_error: true }],
      [{ expect_eror: true }],
      { n: 1 },
      [{ expect_error: false }],
    ]) {
      expect(validate({ tests }), JSON.stringify(tests)).toBe(false);
    }
    expect(validate({ tests: [{ expect: null }, { expect: 1, expect_error: false }] })).toBe(true);
  });
});
