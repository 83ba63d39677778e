/** A team account with objects made by hand in the workbench (through the API), for import and destroy tests. */
import type { SvcClient } from "../../src/api/client";

/** Secret values and the passcode of the hand-made objects: distinctive, so tests can search outputs for them. */
export const HAND_MADE_SECRETS = {
  MAPBOX_TOKEN: "mapbox-hand-made-9d2c71",
  API_KEY_VALUE: "api-key-hand-made-31f0aa",
  MAPS_PASSCODE: "maps-passcode-hand-made-5e6b",
} as const;

const body = (name: string, code: string, more: Record<string, unknown> = {}) =>
  JSON.stringify({
    name,
    type: "geopandas_v2",
    entrypoint: "udf",
    code,
    headers: [],
    metadata: {},
    parameters: {},
    table_schema: null,
    original_headers: null,
    ...more,
  });

export interface HandMade {
  sales: string;
  maps: string;
  loader: string;
  stats: string;
  priceMap: string;
  nightly: string;
}

/**
 * Canvas `<p>sales` (team, shared on the preferred instance): `loader` (helper module `utils`,
 * metadata, hidden) and `stats`; canvas `<p>maps` (public, passcode, a dashboard holding a literal
 * `${`, shared on the secondary instance): `price_map` (entrypoint `main`, two helpers). Cronjob
 * `<p>nightly` runs `loader`, disabled, with arguments; cronjob `bad name!` cannot be a file name.
 * Secrets `MAPBOX_TOKEN` and `api.key` (only with `secrets`).
 */
export async function makeHandMade(
  c: SvcClient,
  p = "",
  opts: { secrets?: boolean; clientIds?: [string, string] } = {},
): Promise<HandMade> {
  const [preferred, secondary] = opts.clientIds ?? ["rt-demo-primary", "rt-demo-secondary"];
  const sales = await c.canvases.create({ name: `${p}sales`, access_scope: "team" });
  const utils = "def double(x):\n    return 2 * x\n";
  const loader = await c.udfs.create({
    slug: "loader",
    udf_type: "auto",
    collection_id: sales.id,
    udf_body: body(
      "loader",
      '@fused.udf(cache_max_age="1h")\ndef udf(city: str = "nyc"):\n    import utils\n    return utils.double(1)\n',
      {
        headers: [{ module_name: "utils", source_file: "utils.py", source_code: utils }],
        metadata: {
          "fused:tags": ["demo", "listings"],
          "fused:description": "Loads ${city} listings",
          "fused:defaultParameters": { city: "nyc", limit: 500 },
        },
      },
    ),
  });
  const stats = await c.udfs.create({
    slug: "stats",
    udf_type: "auto",
    collection_id: sales.id,
    udf_body: body("stats", "def udf():\n    return 42"),
  });
  await c.canvases.update(sales.id, {
    name: `${p}sales`,
    udfs: [
      { id: stats.id, is_visible: true, position: 0 },
      { id: loader.id, is_visible: false, position: 1 },
    ],
  });
  await c.sharing.share({ collectionId: sales.id, clientId: preferred });

  const maps = await c.canvases.create({
    name: `${p}maps`,
    access_scope: "public",
    allow_public_read: true,
    passcode: HAND_MADE_SECRETS.MAPS_PASSCODE,
    dashboard_body: "Prices\n\nUse ${city} in the URL: 100% literal\n",
    preview_image_url: "https://example.com/maps.png",
  });
  const priceMap = await c.udfs.create({
    slug: "price_map",
    udf_type: "auto",
    collection_id: maps.id,
    udf_body: body("price_map", "def main():\n    import geo, colors\n    return geo.f()\n", {
      entrypoint: "main",
      headers: [
        { module_name: "geo", source_file: "geo.py", source_code: "def f():\n    return 1\n" },
        { module_name: "colors", source_file: "colors.py", source_code: "RED = '#f00'\n" },
      ],
    }),
  });
  await c.sharing.share({ collectionId: maps.id, clientId: secondary });

  const nightly = await c.cronjobs.create({
    name: `${p}nightly`,
    enabled: false,
    minute: [30],
    hour: [2],
    day_of_month: [],
    month: [],
    day_of_week: [1, 2, 3, 4, 5],
    udf: loader.id,
    udf_args: { city: "sf", days: 3 },
    description: "Nightly ${city} load",
  });
  await c.cronjobs.create({
    name: `bad name!`,
    enabled: true,
    minute: [0],
    hour: [],
    day_of_month: [],
    month: [],
    day_of_week: [],
    udf: stats.id,
  });
  if (opts.secrets) {
    await c.secrets.create("MAPBOX_TOKEN", HAND_MADE_SECRETS.MAPBOX_TOKEN);
    await c.secrets.create("api.key", HAND_MADE_SECRETS.API_KEY_VALUE);
  }
  return {
    sales: sales.id,
    maps: maps.id,
    loader: loader.id,
    stats: stats.id,
    priceMap: priceMap.id,
    nightly: nightly.id,
  };
}
