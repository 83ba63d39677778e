import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRepository } from "../../../src/reconcile/load/index";
import type { DesiredObject, LoadedProject, LoadResult } from "../../../src/model/desired";
import { copyRepo } from "../../helpers/repo";

const FIXTURE = "test/fixtures/valid-full";
const ENV = { LISTINGS_PASSCODE: "open-sesame-listings-4410", MAPBOX_TOKEN: "pk.mapbox-real-token-9981" };

function projectOf(r: LoadResult): LoadedProject {
  if (!r.ok) throw new Error(`expected a project, got errors: ${JSON.stringify(r.errors)}`);
  return r.project;
}

const find = (p: LoadedProject, address: string): DesiredObject => {
  const o = p.objects.find((x) => x.address === address);
  if (!o) throw new Error(`no ${address}`);
  return o;
};

/** The objects with secret inputs replaced by the name of their variable, so the snapshot holds no secret. */
function withoutSecrets(objects: DesiredObject[]): DesiredObject[] {
  return objects.map((o) => {
    const inputs = { ...o.inputs };
    if (o.kind === "Canvas" && inputs.passcode !== undefined) inputs.passcode = "<secret>";
    if (o.kind === "Secret") inputs.value = "<secret>";
    return { ...o, inputs };
  });
}

describe("loading the full valid repository", () => {
  it("produces every object, sorted by address, with its source location", async () => {
    // GIVEN a repository with every file kind, WHEN it is loaded for the default target
    const p = projectOf(await loadRepository(FIXTURE, { env: ENV }));
    // THEN the objects are deterministic and complete
    expect(p.objects.map((o) => o.address)).toEqual([
      "bucket_policy.archive-bucket",
      "bucket_policy.demo-bucket",
      "canvas.listings",
      "canvas.reports",
      "cronjob.daily-stats",
      "cronjob.weekly_report",
      "secret.MAPBOX_TOKEN",
      "service_account.listings-deployer",
      "service_account.reader",
      "share.listings",
      "udf.listings/loader",
      "udf.listings/stats",
      "udf.reports/weekly",
    ]);
    expect(withoutSecrets(p.objects)).toMatchSnapshot();
  });

  it("takes secret values from the environment and records the variables' names for redaction", async () => {
    const p = projectOf(await loadRepository(FIXTURE, { env: ENV }));
    expect(find(p, "canvas.listings").inputs.passcode).toBe(ENV.LISTINGS_PASSCODE);
    expect(find(p, "secret.MAPBOX_TOKEN").inputs).toEqual({ key: "MAPBOX_TOKEN", value: ENV.MAPBOX_TOKEN });
    expect(p.secretEnvNames).toEqual(["LISTINGS_PASSCODE", "MAPBOX_TOKEN"]);
  });

  it("reads helper modules from sub-folders and from outside the canvas folder, and does not take them for UDFs", async () => {
    const p = projectOf(await loadRepository(FIXTURE, { env: ENV }));
    const loader = find(p, "udf.listings/loader");
    expect((loader.inputs.headers as { moduleName: string }[]).map((h) => h.moduleName)).toEqual(["utils", "geo"]);
    expect(loader.options).toEqual({ isVisible: true, position: 0 });
    expect(p.objects.some((o) => o.address.includes("utils"))).toBe(false);
  });

  it("applies the defaults of the default target", async () => {
    const p = projectOf(await loadRepository(FIXTURE, { env: ENV }));
    expect({ project: p.project, target: p.target, settings: p.settings }).toEqual({
      project: "listings",
      target: "default",
      settings: {
        prune: false,
        maxDeletions: 10,
        maxDeletionsFrom: "the default max_deletions; svc.yaml can set another",
        concurrency: 8,
        history: { keep: 100 },
        state: { kind: "local", path: ".svc-iac/state/listings/default" },
        credentials: {
          baseUrlEnv: "SVC_BASE_URL",
          udfBaseUrlEnv: "SVC_UDF_BASE_URL",
          tokenEnv: "SVC_TOKEN",
          serviceTokenEnv: "SVC_SERVICE_TOKEN",
        },
      },
    });
  });
});

describe("targets and variables", () => {
  it("uses the target's settings, credentials and state, and its variables over the project's", async () => {
    const p = projectOf(await loadRepository(FIXTURE, { target: "staging", env: ENV }));
    expect(p.settings).toEqual({
      prune: true,
      maxDeletions: 3,
      maxDeletionsFrom: "max_deletions of target staging in svc.yaml",
      concurrency: 4,
      history: { keep: 100 },
      state: { kind: "remote", url: "s3://acme-iac/state/listings/staging" },
      credentials: {
        baseUrlEnv: "STAGING_SVC_BASE_URL",
        udfBaseUrlEnv: "SVC_UDF_BASE_URL",
        tokenEnv: "STAGING_SVC_TOKEN",
        serviceTokenEnv: "SVC_SERVICE_TOKEN",
      },
    });
    expect(find(p, "canvas.listings").inputs.dashboardBody).toBe("Listings in sf");
    expect(find(p, "cronjob.daily-stats").inputs.udfArgs).toEqual({ city: "sf", limit: 100 });
  });

  it("keeps a whole-string reference's type, interpolates inside strings, and unescapes $${", async () => {
    const p = projectOf(await loadRepository(FIXTURE, { env: ENV }));
    expect(find(p, "udf.listings/loader").inputs.metadata).toEqual({
      "fused:description": "Loads listings for nyc",
      "fused:tags": ["demo", "listings"],
      "fused:defaultParameters": { limit: 100, literal: "${not_a_variable}" },
    });
  });

  it("keeps a target's settings it does not override from the project", async () => {
    const p = projectOf(await loadRepository(FIXTURE, { target: "prod", env: ENV }));
    expect(p.settings.prune).toBe(false);
    expect(p.settings.state).toEqual({ kind: "remote", url: "gs://acme-iac/state/listings/prod" });
    expect(find(p, "canvas.listings").inputs.dashboardBody).toBe("Listings in nyc");
  });

  it("gives the same result on every load", async () => {
    const a = projectOf(await loadRepository(FIXTURE, { env: ENV }));
    const b = projectOf(await loadRepository(FIXTURE, { env: ENV }));
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });
});

describe("a URL written with an upper-case scheme", () => {
  it("GIVEN preview_image_url: HTTPS://Example.COM/x.png THEN it loads, as URLs' schemes are case-insensitive", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-url-"));
    cpSync(FIXTURE, dir, { recursive: true });
    const file = join(dir, "canvases/listings/canvas.yaml");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(
        "preview_image_url: https://example.com/listings.png",
        "preview_image_url: HTTPS://Example.COM/x.png",
      ),
    );
    const canvas = projectOf(await loadRepository(dir, { env: ENV })).objects.find(
      (o) => o.address === "canvas.listings",
    )!;
    expect(canvas.inputs.previewImageUrl).toBe("HTTPS://Example.COM/x.png");
  });
});

describe("GIVEN history: retention for the project and for a target", () => {
  it("THEN the target's keys win over the project's, key by key", async () => {
    const dir = copyRepo("valid-full");
    const svc = join(dir, "svc.yaml");
    writeFileSync(
      svc,
      readFileSync(svc, "utf8")
        .replace("state: .svc-iac/state\n", "state: .svc-iac/state\nhistory:\n  keep: 50\n  max_age: 90d\n")
        .replace("    concurrency: 4\n", "    concurrency: 4\n    history: {keep: 5}\n"),
    );
    const def = projectOf(await loadRepository(dir, { env: ENV }));
    expect(def.settings.history).toEqual({ keep: 50, maxAgeMs: 90 * 86_400_000 });
    const staging = projectOf(await loadRepository(dir, { target: "staging", env: ENV }));
    expect(staging.settings.history).toEqual({ keep: 5, maxAgeMs: 90 * 86_400_000 });
  });
});
