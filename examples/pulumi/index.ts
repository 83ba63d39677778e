// A canvas with two UDFs read from .py files, shared on the preferred real-time instance, a
// weekday schedule, a secret, a service account, a session token for embedding and the bucket
// policy to hand to a cloud provider. Credentials: `pulumi config set svc:baseUrl …` and
// `pulumi config set --secret svc:token …` (or SVC_BASE_URL and SVC_TOKEN).
import * as pulumi from "@pulumi/pulumi";
import * as svc from "svc-iac/pulumi";

const config = new pulumi.Config();

const canvas = new svc.Canvas("listings", {
  name: config.get("canvasName") ?? "listings_demo",
  accessScope: "team",
});

const loader = new svc.Udf("loader", {
  canvasId: canvas.id,
  slug: "loader",
  codePath: "udfs/loader.py",
  headers: [{ moduleName: "utils", codePath: "udfs/utils.py" }],
  metadata: { "fused:description": "Loads listings for a city", "fused:tags": ["demo"] },
});

const stats = new svc.Udf("stats", {
  canvasId: canvas.id,
  slug: "stats",
  codePath: "udfs/stats.py",
  metadata: { "fused:description": "Median price per neighbourhood" },
});

const share = new svc.CanvasShare(
  "listings-share",
  { canvasId: canvas.id, rotation: config.get("shareRotation") ?? "1" },
  { dependsOn: [loader, stats] },
);

const daily = new svc.Cronjob("daily-stats", {
  name: "listings_daily_stats",
  schedule: "0 6 * * 1-5",
  udfId: stats.id,
  udfArgs: { city: "nyc" },
  description: "Weekday refresh of the price statistics",
});

const mapbox = new svc.Secret("mapbox", {
  key: "MAPBOX_TOKEN",
  value: config.getSecret("mapboxToken") ?? pulumi.secret("pk.example-token"),
});

const deployer = new svc.ServiceAccount("deployer", { name: "listings-deployer", rotation: "2026-11" });

const embed = new svc.SessionToken("embed", { canvasToken: share.shareToken, ttl: 1800 });

const bucket = new svc.BucketPolicy("demo-bucket", { bucketName: "demo-bucket" });

export const canvasId = canvas.id;
export const udfIds = { loader: loader.id, stats: stats.id };
export const statsBodyHash = stats.udfBodyHash;
export const shareToken = share.shareToken; // secret
export const cronjobId = daily.id;
export const secretKey = mapbox.key;
export const deployerToken = deployer.token; // secret
export const embedSessionToken = embed.sessionToken; // secret
export const embedExpiresAt = embed.expiresAt;
export const bucketPolicy = bucket.policy;
