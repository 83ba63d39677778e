import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/api/client";
import { startEmulator } from "../../src/emulator/emulator";
import { failure } from "../helpers/emulator";
import { readParquet } from "../helpers/datasets";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A seed with one team owning s3://acme-data and the given datasets, plus files beside it. */
function seedWith(datasets: string, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-ds-seed-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(
    join(dir, "seed.yaml"),
    `teams:\n  - name: acme\n    buckets: [s3://acme-data]\n    users: [{name: Ann, handle: ann}]\ndatasets:\n${datasets}`,
  );
  return join(dir, "seed.yaml");
}

describe("datasets in the seed file", () => {
  it("GIVEN a CSV row with a bad latitude THEN the start fails naming the seed entry, the file and line, the column, what was found and expected", async () => {
    const seed = seedWith("  - {path: s3://acme-data/ds, resolution: 7, rows: rows.csv}\n", {
      "rows.csv": "id,lat,lng\n1,37.7,-122.4\n2,north,-122.4\n",
    });
    const e = await failure(startEmulator({ seed }));
    expect(e.message).toContain("seed datasets[0] (s3://acme-data/ds):");
    expect(e.message).toContain(`rows.csv:3: column lat: expected a latitude from -90 to 90, found "north"`);
  });

  it.each([
    [
      "a bucket no team has",
      "  - {path: s3://nobody/ds, resolution: 7, rows: []}\n",
      {},
      `seed.yaml:6:12: datasets[0].path: found bucket "s3://nobody", expected a bucket of one of the seed's teams (s3://acme-data)`,
    ],
    [
      "a cell at another resolution",
      "  - {path: s3://acme-data/ds, resolution: 7, rows: rows.json, cell_column: c}\n",
      { "rows.json": '[{"c":"8928308280fffff"}]' },
      "cell 8928308280fffff has resolution 9, the dataset's resolution is 7",
    ],
    [
      "a time that is not a datetime",
      "  - {path: s3://acme-data/ds, resolution: 7, rows: rows.json, time_column: t}\n",
      { "rows.json": '[{"lat":1,"lng":2,"t":"soon"}]' },
      `rows.json[0]: column t: expected an ISO datetime or epoch milliseconds, found "soon"`,
    ],
    [
      "a missing rows file",
      "  - {path: s3://acme-data/ds, resolution: 7, rows: nope.csv}\n",
      {},
      'seed.yaml:6:52: datasets[0].rows: the rows file "nope.csv" does not exist or cannot be read',
    ],
    [
      "a resolution of 16",
      "  - {path: s3://acme-data/ds, resolution: 16}\n",
      {},
      "seed.yaml:6:43: datasets[0].resolution: found 16, expected a whole number from 0 to 15",
    ],
  ])("GIVEN %s THEN the start fails saying so", async (_what, datasets, files, message) => {
    const e = await failure(startEmulator({ seed: seedWith(datasets, files as Record<string, string>) }));
    expect(e.message).toContain(message);
  });

  it("GIVEN a data dir THEN a restart keeps the indexed dataset (not indexed again) and answers the same rows", async () => {
    const seed = seedWith("  - {path: s3://acme-data/ds, resolution: 7, rows: rows.json}\n", {
      "rows.json": JSON.stringify([
        { id: 1, lat: 37.7, lng: -122.4 },
        { id: 2, lat: 40.7, lng: -74 },
      ]),
    });
    const dataDir = mkdtempSync(join(tmpdir(), "svc-ds-data-"));
    dirs.push(dataDir);
    for (let start = 0; start < 2; start++) {
      const emu = await startEmulator({ seed, dataDir });
      const svc = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.user_token });
      try {
        const page = await svc.datasets.query({ path: "s3://acme-data/ds", point: { lat: 40.7, lng: -74 } });
        expect(await readParquet(page.parquet)).toMatchObject([{ id: 2 }]);
        expect(emu.env.store.get<{ generation: number }>("SELECT generation FROM datasets")?.generation).toBe(1);
      } finally {
        await svc.close();
        await emu.close();
      }
    }
  });
});
