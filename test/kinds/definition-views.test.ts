/**
 * A kind's keys, defaults, keep places and import id are declared once, in its definition; the
 * loader's maps, `import --keep` and the provider's import ids are read from it. These tests pin
 * what the derived views say (they were hand-written maps before) and that no such map or default
 * is written again outside a kind's folder.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { canvasDefinition } from "../../src/kinds/canvas/definition";
import { canvasShareDefinition, canvasShareRepository } from "../../src/kinds/canvas-share/definition";
import { cronjobDefinition } from "../../src/kinds/cronjob/definition";
import { inputKeysOf, KEEP_PLACES } from "../../src/kinds/definition-views";
import { KIND_DEFINITIONS } from "../../src/kinds/definitions";
import { udfDefinition } from "../../src/kinds/udf/definition";
import { IMPORT_IDS, NOT_IMPORTABLE } from "../../src/provider/plugin/import-ids";

const SRC = join(__dirname, "../../src");

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : name.endsWith(".ts") ? [path] : [];
  });
}

describe("GIVEN the kinds' definitions", () => {
  it("THEN the loader's input ← key maps are read from them (secret inputs left out)", () => {
    expect(inputKeysOf(canvasDefinition)).toEqual({
      accessScope: "access_scope",
      allowPublicRead: "allow_public_read",
      dashboardBody: "dashboard_body",
      previewImageUrl: "preview_image_url",
    });
    expect(inputKeysOf(canvasShareDefinition, canvasShareRepository, "share.")).toEqual({
      clientId: "share.client_id",
      rotation: "share.rotation",
    });
    expect(inputKeysOf(udfDefinition)).toEqual({
      entrypoint: "entrypoint",
      metadata: "metadata",
      headers: "headers",
      createSharedToken: "shared_token",
      isVisible: "visible",
      position: "position",
    });
    expect(inputKeysOf(cronjobDefinition)).toEqual({
      schedule: "schedule",
      minute: "minute",
      hour: "hour",
      dayOfMonth: "day_of_month",
      month: "month",
      dayOfWeek: "day_of_week",
      udfId: "udf",
      udfArgs: "args",
      enabled: "enabled",
      description: "description",
    });
  });

  it("THEN import --keep writes back where they say, with the loader's defaults", () => {
    expect(KEEP_PLACES).toEqual({
      Udf: {
        code: { in: "code" },
        entrypoint: { in: "yaml", key: "entrypoint", default: "udf" },
        isVisible: { in: "yaml", key: "visible" },
        position: { in: "yaml", key: "position" },
      },
      Canvas: {
        accessScope: { in: "yaml", key: "access_scope", default: "team" },
        allowPublicRead: { in: "yaml", key: "allow_public_read", default: false },
        dashboardBody: { in: "yaml", key: "dashboard_body" },
        previewImageUrl: { in: "yaml", key: "preview_image_url" },
      },
      Cronjob: {
        enabled: { in: "yaml", key: "enabled", default: true },
        description: { in: "yaml", key: "description" },
      },
    });
  });

  it("THEN a keep place's default is the input's default", () => {
    for (const d of KIND_DEFINITIONS)
      for (const [field, place] of Object.entries(KEEP_PLACES[d.kind] ?? {}))
        if (place.in === "yaml" && d.inputs[field])
          expect(place.default, `${d.kind}.${field}`).toEqual(d.inputs[field]!.default);
  });

  it("THEN every kind has an import id or says why it has none, in the package schema's order", () => {
    expect([...Object.keys(IMPORT_IDS), ...Object.keys(NOT_IMPORTABLE)]).toEqual(KIND_DEFINITIONS.map((d) => d.kind));
    expect(IMPORT_IDS.Udf!.inputs).toEqual(["canvasId", "slug", "code", "entrypoint", "headers", "metadata"]);
    expect(Object.keys(NOT_IMPORTABLE)).toEqual(["SessionToken"]);
  });
});

describe("GIVEN the source outside the kinds' folders", () => {
  const outside = filesUnder(SRC).filter((f) => !/^kinds\/[^/]+\//.test(relative(SRC, f).split("\\").join("/")));

  it("THEN no file writes an input ← key map, a keep-place table or an import-id table of its own", () => {
    const hits = outside.flatMap((f) => {
      const text = readFileSync(f, "utf8");
      return [/\b[A-Z_]*INPUT_KEYS\s*=\s*\{/, /\bPLACES\b[^=\n]*=\s*\{/, /\bIMPORT_IDS\b[^=\n]*=\s*\{/]
        .filter((re) => re.test(text))
        .map((re) => `${relative(SRC, f)}: ${re}`);
    });
    expect(hits).toEqual([]);
  });

  it('THEN no file takes a kind\'s default as a literal (?? "udf", ?? "team", ?? true for enabled)', () => {
    // The emulator plays the platform, whose own defaults these are: it is not told them by svc-iac's kinds.
    const hits = outside
      .filter((f) => !relative(SRC, f).startsWith("emulator"))
      .flatMap((f) =>
        readFileSync(f, "utf8")
          .split("\n")
          .filter((line) => /\?\? "(udf|team)"|"enabled"\) \?\? true|DEFAULT_ENTRYPOINT = "udf"/.test(line))
          .map((line) => `${relative(SRC, f)}: ${line.trim()}`),
      );
    expect(hits).toEqual([]);
  });
});
