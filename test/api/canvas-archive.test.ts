import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from "fflate";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { bodyHash } from "../../src/emulator/catalog";
import { failure, useEmulator } from "../helpers/emulator";

const fx = useEmulator();

const code = (name: string, n = 1) => `@fused.udf\ndef udf():\n    return "${name}-${n}"\n`;
const body = (name: string, src = code(name), metadata: object = {}) =>
  JSON.stringify({
    name,
    type: "geopandas_v2",
    entrypoint: "udf",
    code: src,
    headers: [],
    metadata,
    parameters: {},
    table_schema: null,
    original_headers: null,
  });

const toml = (nodes: string[], extra = "") =>
  `type = "canvas"\nversion = 2\nname = "x"\n${extra}\n[canvas]\nedges = []\n` +
  nodes.map((n) => `\n[[canvas.nodes]]\nudfName = "${n}"\n`).join("");
const zip = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])) as Zippable);

describe("canvas export (export-toml)", () => {
  it("GIVEN a public canvas with two UDFs WHEN exported THEN the zip holds canvas.toml v2, one .py per UDF and _shared.fused", async () => {
    const c = await fx.user.canvases.create({
      name: "exported",
      access_scope: "public",
      preview_image_url: "https://img/e.png",
      udfs: [
        { slug: "loader", udf_body: body("loader") },
        { slug: "stats", udf_body: body("stats"), is_visible: false },
      ],
    });
    const files = unzipSync(await fx.user.canvases.exportToml(c.id));
    expect(Object.keys(files).sort()).toEqual(["_shared.fused", "canvas.toml", "loader.py", "stats.py"]);
    expect(strFromU8(files["loader.py"])).toBe(code("loader"));
    expect(strFromU8(files["stats.py"])).toBe(code("stats"));
    expect(parseToml(strFromU8(files["_shared.fused"]))).toEqual({ access_scope: "public" });
    const doc = parseToml(strFromU8(files["canvas.toml"])) as any;
    expect(doc).toMatchObject({ type: "canvas", version: 2, name: "exported", previewImageUrl: "https://img/e.png" });
    expect(doc.canvas.edges).toEqual([]);
    expect(doc.canvas.nodes).toEqual([
      { udfName: "loader", x: 0, y: 0, width: 400, height: 300, visible: true },
      { udfName: "stats", x: 450, y: 0, width: 400, height: 300, visible: false },
    ]);
    // Public: anyone may export it.
    expect(Object.keys(unzipSync(await fx.anon.canvases.exportToml(c.id)))).toContain("canvas.toml");
  });

  it("GIVEN a team canvas WHEN exported THEN no _shared.fused; anonymous callers and other teams get 404", async () => {
    const c = await fx.user.canvases.create({ name: "team_export", udfs: [{ slug: "only", udf_body: body("only") }] });
    expect(Object.keys(unzipSync(await fx.service.canvases.exportToml(c.id))).sort()).toEqual([
      "canvas.toml",
      "only.py",
    ]);
    for (const p of [fx.anon.canvases.exportToml(c.id), fx.other.canvases.exportToml(c.id)]) {
      expect(await failure(p)).toMatchObject({ status: 404, detail: "Canvas not found" });
    }
  });
});

describe("canvas import (import-toml)", () => {
  it("GIVEN an export WHEN imported into another canvas THEN that canvas's UDF set equals the source's: kept by slug, absent ones deleted", async () => {
    const src = await fx.user.canvases.create({
      name: "round_src",
      access_scope: "public",
      udfs: [
        { slug: "loader", udf_body: body("loader", code("loader", 2)) },
        { slug: "fresh", udf_body: body("fresh") },
      ],
    });
    const dst = await fx.user.canvases.create({
      name: "round_dst",
      udfs: [
        { slug: "loader", udf_body: body("loader", code("loader", 1), { "fused:description": "kept" }) },
        { slug: "stale", udf_body: body("stale") },
      ],
    });
    const archive = await fx.user.canvases.exportToml(src.id);
    const result = await fx.user.canvases.importToml(dst.id, archive, "round_src.zip");
    const back = await fx.user.canvases.getById(dst.id);
    expect(back).toEqual(result);
    expect(back).toMatchObject({ name: "round_dst", access_scope: "public" });
    expect(back.udfs.map((u) => u.slug)).toEqual(["loader", "fresh"]);
    const loader = back.udfs[0];
    expect(loader.id).toBe(dst.udfs[0].id);
    // Existing UDF: only `code` replaced, the rest of the body kept.
    expect(JSON.parse(loader.udf_body)).toEqual(
      JSON.parse(body("loader", code("loader", 2), { "fused:description": "kept" })),
    );
    expect(loader.udf_body_hash).toBe(bodyHash(loader.udf_body));
    // New UDF: the platform's default body around the code.
    expect(JSON.parse(back.udfs[1].udf_body)).toEqual({
      name: "fresh",
      type: "geopandas_v2",
      entrypoint: "udf",
      code: code("fresh"),
      headers: [],
      metadata: {},
      parameters: {},
      table_schema: null,
      original_headers: null,
    });
    expect(fx.emu.env.store.get("SELECT id FROM udfs WHERE id = ?", dst.udfs[1].id)).toBeUndefined();
    // Exporting the destination gives the same UDF sources back.
    const again = unzipSync(await fx.user.canvases.exportToml(dst.id));
    expect(strFromU8(again["loader.py"])).toBe(code("loader", 2));
    expect(strFromU8(again["fresh.py"])).toBe(code("fresh"));
  });

  it("GIVEN an archive with layout, visibility and edges, in a top-level folder WHEN imported THEN they are stored and exported back", async () => {
    const c = await fx.user.canvases.create({ name: "layout_canvas", access_scope: "public" });
    const canvasToml = `type = "canvas"\nversion = 2\nname = "layout_canvas"\npreviewImageUrl = "https://img/l.png"\n\n[canvas]\nedges = [["a", "b"]]\n\n[[canvas.nodes]]\nudfName = "a"\nx = 10\ny = 20\nwidth = 300\nheight = 200\nvisible = true\n\n[[canvas.nodes]]\nudfName = "b"\nx = 500\ny = 20\nwidth = 300\nheight = 200\nvisible = false\n`;
    const res = await fx.user.canvases.importToml(
      c.id,
      zip({
        "layout_canvas/canvas.toml": canvasToml,
        "layout_canvas/a.py": "A",
        "layout_canvas/b.py": "B",
        "layout_canvas/README.md": "ignored",
      }),
    );
    expect(res).toMatchObject({ access_scope: "team", preview_image_url: "https://img/l.png" });
    expect(res.udfs.map((u) => [u.slug, u.is_visible, u.position])).toEqual([
      ["a", true, 0],
      ["b", false, 1],
    ]);
    const doc = parseToml(strFromU8(unzipSync(await fx.user.canvases.exportToml(c.id))["canvas.toml"])) as any;
    expect(doc.canvas).toEqual({
      edges: [["a", "b"]],
      nodes: [
        { udfName: "a", x: 10, y: 20, width: 300, height: 200, visible: true },
        { udfName: "b", x: 500, y: 20, width: 300, height: 200, visible: false },
      ],
    });
    // Removing "b" through an update drops the edge that named it.
    await fx.user.canvases.update(c.id, { name: "layout_canvas", udfs: [{ id: res.udfs[0].id }] });
    const after = parseToml(strFromU8(unzipSync(await fx.user.canvases.exportToml(c.id))["canvas.toml"])) as any;
    expect(after.canvas.edges).toEqual([]);
  });

  it("GIVEN malformed uploads or archives WHEN imported THEN 400 naming the problem, and the canvas is unchanged", async () => {
    const c = await fx.user.canvases.create({
      name: "import_errors",
      udfs: [{ slug: "keep", udf_body: body("keep") }],
    });
    const cases: [Uint8Array, string, string][] = [
      [strToU8("not a zip at all"), "canvas.zip", 'The uploaded file "canvas.zip" is not a valid zip archive'],
      [
        zip({ "canvas.toml": toml(["a"]), "a.py": "x" }),
        "canvas.tar",
        'The uploaded file "canvas.tar" is not a .zip archive',
      ],
      [zip({ "a.py": "x" }), "c.zip", "The archive holds no canvas.toml"],
      [zip({ "canvas.toml": "version = = 2", "a.py": "x" }), "c.zip", "canvas.toml is not valid TOML"],
      [
        zip({ "canvas.toml": toml(["a"]).replace("version = 2", "version = 1"), "a.py": "x" }),
        "c.zip",
        "canvas.toml: version must be 2, not 1",
      ],
      [
        zip({ "canvas.toml": toml(["a"]), "a.py": "x", "b.py": "y" }),
        "c.zip",
        '"b.py" does not match any node\'s udfName in canvas.toml',
      ],
      [
        zip({ "canvas.toml": toml(["a", "b"]), "a.py": "x" }),
        "c.zip",
        'Node "b" has no source file "b.py" in the archive',
      ],
      [
        zip({ "canvas.toml": toml(["a"]), "a.py": "x", "sub/a.py": "y" }),
        "c.zip",
        'The archive holds more than one file named "a.py"; file stems must be unique',
      ],
      [
        zip({ "canvas.toml": toml(["a", "a"]), "a.py": "x" }),
        "c.zip",
        'canvas.toml: more than one node has udfName "a"',
      ],
      [
        zip({ "canvas.toml": toml(["a"]).replace("edges = []", 'edges = [["a", "zz"]]'), "a.py": "x" }),
        "c.zip",
        'canvas.toml: canvas.edges[0] names "zz", which is not a node\'s udfName',
      ],
    ];
    for (const [bytes, name, detail] of cases) {
      const e = await failure(fx.user.canvases.importToml(c.id, bytes, name));
      expect(e).toMatchObject({ status: 400, code: "bad_request" });
      expect(e.detail.startsWith(detail), `${e.detail} should start with ${detail}`).toBe(true);
    }
    const back = await fx.user.canvases.getById(c.id);
    expect(back.udfs.map((u) => [u.slug, u.udf_body])).toEqual([["keep", body("keep")]]);
  });

  it("GIVEN the wrong caller WHEN importing THEN 404 for another team, 403 for a service token, 401 without credentials", async () => {
    const c = await fx.user.canvases.create({ name: "import_guard" });
    const archive = zip({ "canvas.toml": toml(["a"]), "a.py": "x" });
    expect(await failure(fx.other.canvases.importToml(c.id, archive))).toMatchObject({
      status: 404,
      detail: "Canvas not found",
    });
    expect(await failure(fx.service.canvases.importToml(c.id, archive))).toMatchObject({
      status: 403,
      detail: "This endpoint acts on a user; a service account token cannot be used",
    });
    expect(await failure(fx.anon.canvases.importToml(c.id, archive))).toMatchObject({
      status: 401,
      detail: "Not authenticated",
    });
    expect((await fx.user.canvases.getById(c.id)).udfs).toEqual([]);
  });
});

describe("canvas import with a 2 KiB archive limit", () => {
  const small = useEmulator({ importMaxBytes: 2048 });

  it("GIVEN an archive over importMaxBytes WHEN imported THEN 413, while a small one is accepted", async () => {
    const c = await small.user.canvases.create({ name: "limited" });
    // Incompressible content, stored without compression, so the zip is larger than 2048 bytes.
    const noise = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(33 + ((i * 7919) % 90))).join("");
    const big = zipSync({ "canvas.toml": strToU8(toml(["a"])), "a.py": [strToU8(noise), { level: 0 }] });
    expect(big.length).toBeGreaterThan(2048);
    const e = await failure(small.user.canvases.importToml(c.id, big));
    expect(e).toMatchObject({
      status: 413,
      code: "payload_too_large",
      detail: `The archive is ${big.length} bytes; at most 2048 bytes are accepted`,
    });
    expect((await small.user.canvases.getById(c.id)).udfs).toEqual([]);

    const ok = await small.user.canvases.importToml(c.id, zip({ "canvas.toml": toml(["a"]), "a.py": "print(1)\n" }));
    expect(ok.udfs.map((u) => u.slug)).toEqual(["a"]);
  });
});
