/**
 * `pulumi import` through the provider plugin, for objects made by hand on the platform: `Read`
 * with the import id and nothing else, then the engine's import check (Check of the declared
 * inputs, Diff against what Read returned), which must be empty. Also the inputs Read returns (what
 * `pulumi import` writes into the generated program) check and diff empty once the values the
 * platform never returns are added, and the import-id table of docs/pulumi.md is the plugin's.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountName } from "../../src/kinds/service-account/resource";
import { useEmulator } from "../helpers/emulator";
import { HAND_MADE_SECRETS, makeHandMade, type HandMade } from "../helpers/hand-made";
import { ProviderHost, revealed, secret, type Props } from "../helpers/provider-host";

const { IMPORT_IDS, NOT_IMPORTABLE } = require("../../dist/provider/plugin/import-ids");

const fx = useEmulator();
let host: ProviderHost;
let hand: HandMade;
let files: string;
const urn = (kind: string, name = "imported") => `urn:pulumi:dev::proj::svc:index:${kind}::${name}`;

beforeAll(async () => {
  host = await ProviderHost.startPlugin({ env: { SVC_BASE_URL: undefined, SVC_TOKEN: undefined } });
  await host.configureWith({}, { baseUrl: fx.emu.baseUrl, token: secret(fx.emu.tokens.user_token) });
  hand = await makeHandMade(fx.user, "imp_", { secrets: true });
  // The program's UDF sources, as files (absolute paths: the plugin reads them from its folder).
  files = mkdtempSync(join(tmpdir(), "svc-import-"));
  writeFileSync(
    join(files, "loader.py"),
    '@fused.udf(cache_max_age="1h")\ndef udf(city: str = "nyc"):\n    import utils\n    return utils.double(1)\n',
  );
  writeFileSync(join(files, "utils.py"), "def double(x):\n    return 2 * x\n");
});
afterAll(async () => host?.stop());

/** Imports `id` as a resource declared with `declared`: the Read, and the engine's Diff of the declared inputs. */
async function importAs(kind: string, id: string, declared: Props) {
  const read = await host.importRead(urn(kind), id);
  expect(read.id).toBe(id);
  const checked = await host.check(urn(kind), read.inputs ?? {}, declared);
  expect(checked.failures).toEqual([]);
  const diff = await host.diff(urn(kind), id, read.properties, checked.inputs);
  for (const value of Object.values(HAND_MADE_SECRETS)) expect(JSON.stringify(read)).not.toContain(value);
  return { read, diff };
}

const EMPTY = { changes: "none", replaces: [], deleteBeforeReplace: false };

describe("GIVEN objects made by hand on the platform WHEN each is imported by its id into the plugin's resource declaring it", () => {
  it("a team canvas, and a public canvas with a passcode, dashboard and preview: the import diff is empty", async () => {
    expect((await importAs("Canvas", hand.sales, { name: "imp_sales" })).diff).toEqual(EMPTY);
    const maps = await importAs("Canvas", hand.maps, {
      name: "imp_maps",
      accessScope: "public",
      allowPublicRead: true,
      passcode: secret(HAND_MADE_SECRETS.MAPS_PASSCODE),
      dashboardBody: "Prices\n\nUse ${city} in the URL: 100% literal\n",
      previewImageUrl: "https://example.com/maps.png",
    });
    expect(maps.diff).toEqual(EMPTY);
    // AND another passcode than the platform's is a change
    const other = await host.check(
      urn("Canvas"),
      {},
      {
        name: "imp_maps",
        accessScope: "public",
        allowPublicRead: true,
        passcode: secret("another"),
        dashboardBody: "Prices\n\nUse ${city} in the URL: 100% literal\n",
        previewImageUrl: "https://example.com/maps.png",
      },
    );
    expect((await host.diff(urn("Canvas"), hand.maps, maps.read.properties, other.inputs)).changes).toBe("some");
  });

  it("a UDF with a helper module and metadata, declared from .py files: the import diff is empty", async () => {
    const { diff } = await importAs("Udf", hand.loader, {
      canvasId: hand.sales,
      slug: "loader",
      codePath: join(files, "loader.py"),
      headers: [{ moduleName: "utils", codePath: join(files, "utils.py") }],
      metadata: {
        "fused:tags": ["demo", "listings"],
        "fused:description": "Loads ${city} listings",
        "fused:defaultParameters": { city: "nyc", limit: 500 },
      },
    });
    expect(diff).toEqual(EMPTY);
  });

  it("a share on the preferred instance, and one pinned to another: the import diff is empty and the token is not rotated", async () => {
    const before = await fx.user.canvases.getById(hand.maps);
    expect((await importAs("CanvasShare", hand.sales, { canvasId: hand.sales })).diff).toEqual(EMPTY);
    expect(
      (
        await importAs("CanvasShare", hand.maps, {
          canvasId: hand.maps,
          clientId: "rt-demo-secondary",
          accessScope: "public",
        })
      ).diff,
    ).toEqual(EMPTY);
    expect((await fx.user.canvases.getById(hand.maps)).share_token).toBe(before.share_token);
  });

  it("a cronjob declared with a cron expression: the import diff is empty", async () => {
    const { diff } = await importAs("Cronjob", hand.nightly, {
      name: "imp_nightly",
      schedule: "30 2 * * MON-FRI",
      udfId: hand.loader,
      udfArgs: { city: "sf", days: 3 },
      enabled: false,
      description: "Nightly ${city} load",
    });
    expect(diff).toEqual(EMPTY);
  });

  it("a secret, its value declared after the import: the import diff is empty, and another value is an update", async () => {
    const { read, diff } = await importAs("Secret", "MAPBOX_TOKEN", {
      key: "MAPBOX_TOKEN",
      value: secret(HAND_MADE_SECRETS.MAPBOX_TOKEN),
    });
    expect(diff).toEqual(EMPTY);
    const other = await host.check(urn("Secret"), {}, { key: "MAPBOX_TOKEN", value: secret("rotated") });
    expect(await host.diff(urn("Secret"), "MAPBOX_TOKEN", read.properties, other.inputs)).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("a service account made by hand, and one svc-iac made with a rotation: the import diff is empty; the token stays unknown", async () => {
    const byHand = await fx.user.environment.createServiceAccount("ci-bot");
    expect((await importAs("ServiceAccount", byHand.id, { name: "ci-bot" })).diff).toEqual(EMPTY);
    const tagged = await fx.user.environment.createServiceAccount(
      accountName({ name: "deployer", rotation: "2026-06" }),
    );
    const imported = await importAs("ServiceAccount", tagged.id, { name: "deployer", rotation: "2026-06" });
    expect(imported.diff).toEqual(EMPTY);
    expect(revealed(imported.read.properties)).toMatchObject({
      name: "deployer",
      accountName: tagged.name,
      token: null,
    });
    // AND another rotation than the one its tag was made with replaces it
    const next = await host.check(urn("ServiceAccount"), {}, { name: "deployer", rotation: "2026-07" });
    expect((await host.diff(urn("ServiceAccount"), tagged.id, imported.read.properties, next.inputs)).replaces).toEqual(
      ["rotation"],
    );
  });

  it("a bucket policy: the import diff is empty", async () => {
    expect((await importAs("BucketPolicy", "imp-data", { bucketName: "imp-data" })).diff).toEqual(EMPTY);
  });

  it("a session token: refused, saying why (no secret in an id)", async () => {
    await expect(host.importRead(urn("SessionToken"), "sha256:whatever")).rejects.toThrow(
      /cannot be read from its id alone/,
    );
  });

  it("an id that does not exist: Read says so (empty id), so the engine reports it", async () => {
    expect((await host.importRead(urn("Canvas"), "00000000-0000-0000-0000-000000000000")).id).toBe("");
  });
});

describe("the inputs Read returns, as `pulumi import` writes them into a program", () => {
  it("check clean and diff empty for every importable kind, once the values the platform never returns are added", async () => {
    const afterImport: Record<string, [string, Props]> = {
      Canvas: [hand.maps, { passcode: secret(HAND_MADE_SECRETS.MAPS_PASSCODE) }],
      Udf: [hand.priceMap, {}],
      CanvasShare: [hand.maps, {}],
      Cronjob: [hand.nightly, {}],
      Secret: ["api.key", { value: secret(HAND_MADE_SECRETS.API_KEY_VALUE) }],
      ServiceAccount: [(await fx.user.environment.createServiceAccount("reader")).id, {}],
      BucketPolicy: ["imp-other", {}],
    };
    expect(Object.keys(afterImport).sort()).toEqual(Object.keys(IMPORT_IDS).sort());
    for (const [kind, [id, added]] of Object.entries(afterImport)) {
      const read = await host.importRead(urn(kind), id);
      const declared = { ...read.inputs, ...added };
      const checked = await host.check(urn(kind), read.inputs ?? {}, declared);
      expect(checked.failures, kind).toEqual([]);
      expect(await host.diff(urn(kind), id, read.properties, checked.inputs), kind).toEqual(EMPTY);
    }
  });
});

describe("docs/pulumi.md", () => {
  it("lists every kind's import id in one table, as the plugin defines them", () => {
    const text = readFileSync(join(__dirname, "../../docs/pulumi.md"), "utf8");
    const table = text.slice(text.indexOf("| kind | import id |"));
    const lines = table.split("\n").slice(2);
    const rows = lines
      .slice(
        0,
        lines.findIndex((l) => !l.startsWith("|")),
      )
      .map((l) => l.split("|").map((c) => c.trim()));
    const documented = Object.fromEntries(rows.map((r) => [r[1]!.replace(/`/g, ""), r[2]!.replace(/`/g, "")]));
    const expected = {
      ...Object.fromEntries(Object.entries(IMPORT_IDS).map(([k, v]: [string, any]) => [k, v.id])),
      ...Object.fromEntries(Object.keys(NOT_IMPORTABLE).map((k) => [k, "none"])),
    };
    expect(documented).toEqual(expected);
  });
});
