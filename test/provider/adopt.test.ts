/**
 * Adopting objects made by hand into a Pulumi stack. For each kind, the provider's read with an id
 * and no prior state (through the real dynamic-provider host) returns state a program can use, and
 * the diff of that state against the program's inputs describing the same object is empty: the
 * next `pulumi up` changes nothing. Create adopts by natural key the same way (no duplicate).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/emulator";
import { makeHandMade, type HandMade } from "../helpers/hand-made";
import { ProviderHost, type Props } from "../helpers/provider-host";

// The provider is loaded from the built package, as a user's program loads it.
const { providerText } = require("../../dist/provider/stub");

const fx = useEmulator();
const urn = (kind: string) => `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/svc:${kind}::adopted`;
let host: ProviderHost;
let hand: HandMade;
const providers: Record<string, string> = {};

beforeAll(async () => {
  host = await ProviderHost.start({ env: { SVC_BASE_URL: undefined, SVC_TOKEN: undefined } });
  await host.configure({ "svc:baseUrl": fx.emu.baseUrl, "svc:token": fx.emu.tokens.user_token });
  for (const kind of ["Canvas", "Udf", "Cronjob", "CanvasShare"]) providers[kind] = providerText(kind);
  hand = await makeHandMade(fx.user, "adopt_");
});
afterAll(async () => host?.stop());

/** Reads `id` with no prior state, then diffs the read state against the program's `inputs`. */
async function adopt(kind: string, id: string, inputs: Props) {
  const __provider = providers[kind]!;
  const read = await host.readById(urn(kind), id, { __provider, ...inputs });
  const checked = await host.check(urn(kind), {}, { __provider, ...inputs });
  expect(checked.failures).toEqual([]);
  const diff = await host.diff(urn(kind), read.id, read.properties, checked.inputs);
  return { read, diff };
}

describe("GIVEN objects made by hand in the workbench", () => {
  it("WHEN a canvas is read by id with no state THEN its state is usable and the program's inputs diff empty", async () => {
    const { read, diff } = await adopt("Canvas", hand.sales, { name: "adopt_sales", accessScope: "team" });
    expect(read.id).toBe(hand.sales);
    expect(read.properties).toMatchObject({
      id: hand.sales,
      name: "adopt_sales",
      accessScope: "team",
      allowPublicRead: false,
      username: "dana",
    });
    expect(diff).toEqual({ changes: "none", replaces: [], deleteBeforeReplace: false });
    // Inputs that differ from the object are a change, not a silent adoption.
    const other = await adopt("Canvas", hand.sales, { name: "adopt_sales", accessScope: "public" });
    expect(other.diff.changes).toBe("some");
  });

  it("WHEN a UDF with helper modules and metadata is read by id THEN the same code, helpers and metadata diff empty", async () => {
    const { read, diff } = await adopt("Udf", hand.loader, {
      canvasId: hand.sales,
      slug: "loader",
      code: '@fused.udf(cache_max_age="1h")\ndef udf(city: str = "nyc"):\n    import utils\n    return utils.double(1)\n',
      headers: [{ moduleName: "utils", code: "def double(x):\n    return 2 * x\n" }],
      metadata: {
        "fused:tags": ["demo", "listings"],
        "fused:description": "Loads ${city} listings",
        "fused:defaultParameters": { city: "nyc", limit: 500 },
      },
    });
    expect(read.properties).toMatchObject({ id: hand.loader, slug: "loader", canvasId: hand.sales });
    expect(diff.changes).toBe("none");
  });

  it("WHEN a cronjob is read by id THEN its schedule as a cron expression diffs empty", async () => {
    const { read, diff } = await adopt("Cronjob", hand.nightly, {
      name: "adopt_nightly",
      schedule: "30 2 * * 1-5",
      udfId: hand.loader,
      enabled: false,
      udfArgs: { city: "sf", days: 3 },
      description: "Nightly ${city} load",
    });
    expect(read.properties).toMatchObject({ id: hand.nightly, name: "adopt_nightly", enabled: false });
    expect(diff.changes).toBe("none");
  });

  it("WHEN a share is read by its canvas id THEN it keeps its token (a secret output) and diffs empty", async () => {
    const { read, diff } = await adopt("CanvasShare", hand.sales, {
      canvasId: hand.sales,
      clientId: "rt-demo-primary",
    });
    expect(read.properties).toMatchObject({ canvasId: hand.sales, clientId: "rt-demo-primary" });
    expect(typeof read.properties.shareToken).toBe("string");
    expect(diff.changes).toBe("none");
  });

  it("WHEN an id does not exist THEN read says so (empty id), so the engine reports it instead of adopting nothing", async () => {
    const read = await host.readById(urn("Canvas"), "00000000-0000-0000-0000-000000000000", {
      __provider: providers.Canvas!,
      name: "nope",
    });
    expect(read.id).toBe("");
  });
});
