import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  buildUdfBody,
  canonicalBody,
  canonicalJson,
  parseUdfBody,
  sameUdfBody,
  udfBodySentBytesAtMost,
} from "../../src/kinds/udf/udf-body";
import { secretsRead, udfKind, type UdfInputs, type UdfState } from "../../src/kinds/udf/resource";

const FIXTURES = "test/fixtures/udf";

const inputs = (over: Partial<UdfInputs> = {}): UdfInputs => ({
  canvasId: "c1",
  slug: "listings",
  code: "def udf(): return 1\n",
  entrypoint: "udf",
  headers: [{ moduleName: "utils", code: "def f(): ...\n" }],
  metadata: { "fused:description": "Loads listings", "fused:tags": ["demo"] },
  createSharedToken: false,
  ...over,
});

const state = (over: Partial<UdfState> = {}): UdfState => ({
  ...inputs(),
  canvasId: "c1",
  id: "u1",
  udfBodyHash: "h1",
  ...over,
});

describe("the udf_body", () => {
  it("holds every field of the platform's body, with sorted keys", () => {
    const body = buildUdfBody({
      name: "listings",
      entrypoint: "udf",
      code: "x",
      headers: [{ moduleName: "utils", code: "y" }],
      metadata: { b: 1, a: { d: 2, c: 3 } },
    });
    expect(body).toBe(
      '{"code":"x","entrypoint":"udf","headers":[{"module_name":"utils","source_code":"y","source_file":"utils.py"}],' +
        '"metadata":{"a":{"c":3,"d":2},"b":1},"name":"listings","original_headers":null,"parameters":{},"table_schema":null,"type":"geopandas_v2"}',
    );
  });

  it("is byte-identical for equal inputs, whatever the metadata's key order", () => {
    const a = buildUdfBody({ name: "n", entrypoint: "udf", code: "c", headers: [], metadata: { x: 1, y: 2 } });
    const b = buildUdfBody({ name: "n", entrypoint: "udf", code: "c", headers: [], metadata: { y: 2, x: 1 } });
    expect(a).toBe(b);
  });

  it("is the canonical JSON of the body's object for any parts (text with quotes, control and non-ASCII characters, nested metadata)", () => {
    const text = fc.string({ unit: "binary" });
    fc.assert(
      fc.property(
        fc.record({
          name: text,
          entrypoint: text,
          code: text,
          headers: fc.array(fc.record({ moduleName: text, code: text }), { maxLength: 3 }),
          metadata: fc.dictionary(text, fc.jsonValue()),
        }),
        (parts) => {
          expect(buildUdfBody(parts)).toBe(canonicalBody(parts));
        },
      ),
    );
  });

  it("parses back into the parts it was built from", () => {
    const parts = {
      name: "n",
      entrypoint: "main",
      code: "c",
      headers: [{ moduleName: "m", code: "s" }],
      metadata: { k: [1] },
    };
    expect(parseUdfBody(buildUdfBody(parts))).toEqual(parts);
  });

  it("parses a body that is not a JSON object as all code (plain code saved by hand), so a diff shows that code", () => {
    expect(parseUdfBody("x = 1\n")).toEqual({ name: "", entrypoint: "", code: "x = 1\n", headers: [], metadata: {} });
    expect(parseUdfBody("[1]").code).toBe("[1]");
  });

  it("compares bodies by content, not by key order or spacing", () => {
    expect(sameUdfBody('{"a":1,"b":[1,2]}', '{ "b": [1, 2], "a": 1 }')).toBe(true);
    expect(sameUdfBody('{"a":1}', '{"a":2}')).toBe(false);
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
  });
});

describe("the size bound of a body as sent (the check builds no body when it fits)", () => {
  // Any UTF-16 unit: control characters, quotes, backslashes, non-ASCII, lone surrogates.
  const text = fc.string({ unit: fc.nat(0xffff).map((c) => String.fromCharCode(c)), maxLength: 60 });
  const parts = fc.record({
    name: text,
    entrypoint: text,
    code: text,
    headers: fc.array(fc.record({ moduleName: text, code: text }), { maxLength: 3 }),
    metadata: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  });

  it("is never below the bytes of the body as sent, whatever the parts hold", () => {
    fc.assert(
      fc.property(parts, (p) => {
        expect(udfBodySentBytesAtMost(p)).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(buildUdfBody(p))));
      }),
      { numRuns: 2000 },
    );
  });

  it("holds for the worst characters, a thousand of each", () => {
    for (const ch of ["\u0001", '"', "\\", "\ud800", "\udfff", "\u2028", "\uffff", "\u00e9", "\ud83d\ude00"]) {
      const p = {
        name: ch,
        entrypoint: ch,
        code: ch.repeat(1000),
        headers: [{ moduleName: ch, code: ch.repeat(1000) }],
        metadata: { [ch]: [ch.repeat(100)] },
      };
      expect(udfBodySentBytesAtMost(p)).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(buildUdfBody(p))));
    }
  });

  it("GIVEN a UDF over the request limit THEN the check still refuses it with its size as sent", () => {
    // 6 MiB of control characters: 36 MiB as sent (each \u0001 is 7 bytes), over the 32 MiB request limit.
    const r = udfKind.check({ canvasId: "c1", slug: "big", code: "\u0001".repeat(6 * 2 ** 20), entrypoint: "udf" });
    expect(r.failures.map((f) => f.reason).join("\n")).toMatch(
      /^The UDF body \(its code, 0 helper modules and metadata\) is 44,040,\d{3} bytes \(42\.0 MiB\) as sent; expected at most 33,550,336 bytes/,
    );
  });

  it("GIVEN a UDF under the limit whose bound is over it THEN the check builds the body and accepts it", () => {
    // 1 MiB of control characters (7 bytes each as sent) and 4 MiB of letters: 11 MiB as sent, but
    // the bound counts 7 bytes for every character (35 MiB), so the body is built and measured.
    const code = "\u0001".repeat(2 ** 20) + "x".repeat(4 * 2 ** 20);
    expect(udfBodySentBytesAtMost({ name: "ok", entrypoint: "udf", code, headers: [], metadata: {} })).toBeGreaterThan(
      33_550_336,
    );
    expect(udfKind.check({ canvasId: "c1", slug: "ok", code, entrypoint: "udf" }).failures).toEqual([]);
  });
});

describe("Udf check", () => {
  it("GIVEN inline code THEN applies the defaults", () => {
    const r = udfKind.check({ canvasId: "c1", slug: "hello", code: "def udf(): ..." });
    expect(r).toEqual({
      inputs: {
        canvasId: "c1",
        slug: "hello",
        code: "def udf(): ...",
        entrypoint: "udf",
        headers: [],
        metadata: {},
        createSharedToken: false,
      },
      failures: [],
    });
  });

  it("GIVEN codePath THEN the file's content becomes code, relative to the working directory", () => {
    const r = udfKind.check({
      canvasId: "c1",
      slug: "listings",
      codePath: `${FIXTURES}/listings.py`,
      headers: [{ moduleName: "utils", codePath: `${FIXTURES}/utils.py` }],
    });
    expect(r.failures).toEqual([]);
    expect(r.inputs.code).toContain("def udf(city");
    expect(r.inputs.headers).toEqual([{ moduleName: "utils", code: "def load(city):\n    return city\n" }]);
    expect(r.inputs).not.toHaveProperty("codePath");
    // Checking checked inputs again changes nothing (the provider runtime does it before each call).
    expect(udfKind.check(r.inputs)).toEqual(r);
  });

  it("GIVEN nothing THEN names every required field", () => {
    expect(udfKind.check({}).failures).toEqual([
      {
        property: "canvasId",
        reason: "canvasId is required: canvasId is the id of the canvas holding the UDF (e.g. canvas.id).",
      },
      { property: "slug", reason: "slug is required: A slug is a string of letters, digits, '_' and '-'." },
      {
        property: "code",
        reason: "code is required: give the Python source in code, or the path of a .py file in codePath.",
      },
    ]);
  });

  it("GIVEN many bad inputs THEN reports every one at once with the value found and the expected form", () => {
    const r = udfKind.check({
      canvasId: "",
      slug: "bad slug",
      code: "x",
      codePath: "a.py",
      entrypoint: "1x",
      headers: [
        { moduleName: "utils", codePath: "nope.py" },
        { moduleName: "utils" },
        { moduleName: "bad-name", codePath: "x.txt" },
      ],
      metadata: [1],
      createSharedToken: "yes",
    });
    expect(r.failures).toEqual([
      {
        property: "canvasId",
        reason:
          'Invalid canvasId "". canvasId must not be empty: give the id of the canvas holding the UDF (e.g. canvas.id).',
      },
      {
        property: "slug",
        reason:
          "Invalid slug \"bad slug\". A slug is URL-safe: letters, digits, '_' and '-' only ([A-Za-z0-9_-]+), e.g. \"load-listings\".",
      },
      { property: "entrypoint", reason: 'Invalid entrypoint "1x". entrypoint is a Python function name, e.g. "udf".' },
      {
        property: "headers[2].moduleName",
        reason:
          'Invalid headers[2].moduleName "bad-name". moduleName is a Python module name: a letter or "_", then letters, digits or "_", e.g. "utils".',
      },
      {
        property: "headers[2].codePath",
        reason:
          'Invalid headers[2].codePath "x.txt". codePath is the path of a Python file ending in .py, relative to the Pulumi program folder, e.g. "udfs/loader.py".',
      },
      {
        property: "headers[1].moduleName",
        reason: 'Invalid headers[1].moduleName "utils". Module names must be unique within headers.',
      },
      {
        property: "metadata",
        reason: 'Invalid metadata [1]. metadata is an object, e.g. {"fused:description": "Loads listings"}.',
      },
      { property: "createSharedToken", reason: 'Invalid createSharedToken "yes". createSharedToken is true or false.' },
      { property: "codePath", reason: 'Invalid codePath "a.py". Give either code or codePath, not both.' },
      {
        property: "headers[0].codePath",
        reason: `Invalid headers[0].codePath "nope.py". No readable file at ${process.cwd()}/nope.py (ENOENT); paths are relative to the Pulumi program folder.`,
      },
      {
        property: "headers[1].code",
        reason:
          "headers[1].code is required: give the Python source in headers[1].code, or the path of a .py file in headers[1].codePath.",
      },
    ]);
  });

  it("the natural key is the canvas and the slug", () => {
    expect(udfKind.key(inputs())).toBe("c1/listings");
  });
});

describe("Udf diff", () => {
  it("GIVEN the same inputs THEN nothing changes and every field is stable", () => {
    const d = udfKind.diff(state(), inputs());
    expect(d).toEqual({
      changes: false,
      replaces: [],
      stables: ["canvasId", "code", "createSharedToken", "entrypoint", "headers", "metadata", "slug"],
      deleteBeforeReplace: false,
      fields: [],
    });
  });

  it("GIVEN metadata with another key order THEN it is stable", () => {
    expect(
      udfKind.diff(state(), inputs({ metadata: { "fused:tags": ["demo"], "fused:description": "Loads listings" } }))
        .changes,
    ).toBe(false);
  });

  it.each([
    ["slug", { slug: "listings-2" }],
    ["code", { code: "def udf(): return 2\n" }],
    ["entrypoint", { entrypoint: "main" }],
    ["headers", { headers: [{ moduleName: "utils", code: "def g(): ...\n" }] }],
    ["metadata", { metadata: { "fused:description": "new" } }],
  ] as [string, Partial<UdfInputs>][])("GIVEN a new %s THEN it updates in place", (field, over) => {
    const d = udfKind.diff(state(), inputs(over));
    expect(d.changes).toBe(true);
    expect(d.replaces).toEqual([]);
    expect(d.deleteBeforeReplace).toBe(false);
    expect(d.fields.map((f) => [f.field, f.action])).toEqual([[field, "update"]]);
    expect(d.stables).not.toContain(field);
  });

  it("GIVEN another canvas THEN the UDF moves in place (collection_id)", () => {
    const d = udfKind.diff(state(), inputs({ canvasId: "c2" }));
    expect(d.replaces).toEqual([]);
    expect(d.fields).toEqual([
      {
        field: "canvasId",
        action: "update",
        secret: false,
        from: "c1",
        to: "c2",
        note: "moves the UDF to the other canvas (collection_id)",
      },
    ]);
  });

  it("GIVEN createSharedToken changed THEN it replaces, deleting the old UDF first (slugs are unique on a canvas)", () => {
    const d = udfKind.diff(state(), inputs({ createSharedToken: true }));
    expect(d.replaces).toEqual(["createSharedToken"]);
    expect(d.deleteBeforeReplace).toBe(true);
    expect(d.fields[0].note).toBe("a per-UDF shared token can only be minted when the UDF is created");
  });

  it("GIVEN a UDF found by a listing (createSharedToken unknown) THEN it is not replaced for it", () => {
    const { createSharedToken: _c, ...observed } = state();
    expect(udfKind.diff(observed, inputs({ createSharedToken: true })).changes).toBe(false);
  });
});

describe("the secrets a UDF reads (what --only takes along)", () => {
  it("are the keys named through secrets[...] or secrets.KEY in its code and helper modules, as secret addresses", () => {
    const d = {
      address: "udf.a/b",
      kind: "Udf" as const,
      inputs: {
        code: "k = fused.secrets[\"MAPBOX_TOKEN\"]\nj = secrets[ 'api.key' ]\n",
        headers: [{ moduleName: "utils", code: "t = fused.secrets.OTHER_KEY\n" }],
      },
      refs: { canvas: "a" },
      options: {},
      source: { file: "canvases/a/b.py", line: 1, column: 1, path: "" },
    };
    expect(secretsRead(d)).toEqual(["secret.MAPBOX_TOKEN", "secret.OTHER_KEY", "secret.api.key"]);
    expect(secretsRead({ ...d, inputs: { code: "return 1\n", headers: [] } })).toEqual([]);
  });
});
