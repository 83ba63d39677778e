/**
 * A pull request writes the repository; the plan runs with the platform token, GitHub's token and
 * the repository's secret values in its environment. `${env.NAME}` in a field that is not secret
 * would print them in the plan (and its pull-request comment) and store them on the platform as
 * plain text: such a reference is refused at its field, and the value appears in no output.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess } from "../../helpers/cli-run";
import { copyRepo, FIXTURE_SECRETS } from "../../helpers/repo";
import { useCountingPlatform } from "../../helpers/counting-platform";

const PLATFORM_TOKEN = "svc-platform-token-c0ffee-5150";
const GITHUB_TOKEN = "ghs_runner-token-deadbeef-8086";

const platform = useCountingPlatform();

const env = () => ({
  SVC_BASE_URL: platform.url,
  SVC_UDF_BASE_URL: platform.url,
  SVC_TOKEN: PLATFORM_TOKEN,
  GITHUB_TOKEN,
  ...FIXTURE_SECRETS,
});

describe("GIVEN a pull request whose plain fields read credentials from the environment", () => {
  it("WHEN the platform token, GitHub's token and a secret value are put in a dashboard, UDF metadata and a variable THEN validate and plan exit 1 at each field, show none of the values, and send nothing", async () => {
    const dir = copyRepo("valid-full");
    const edit = (file: string, from: string, to: string) => {
      const text = readFileSync(join(dir, file), "utf8");
      expect(text).toContain(from);
      writeFileSync(join(dir, file), text.replace(from, to));
    };
    edit(
      "canvases/listings/canvas.yaml",
      'dashboard_body: "Listings in ${var.city}"',
      'dashboard_body: "Listings ${env.SVC_TOKEN} ${env.GITHUB_TOKEN}"',
    );
    edit(
      "canvases/listings/loader.yaml",
      '"fused:description": Loads listings for ${var.city}',
      '"fused:description": ${env.MAPBOX_TOKEN}',
    );
    edit("svc.yaml", "  city: nyc", "  city: ${env.SVC_TOKEN}");
    for (const [command, args] of [
      ["validate", []],
      ["plan", []],
      ["plan", ["--json"]],
    ] as const) {
      platform.reset();
      const r = await runInProcess(command, [dir, ...args], env());
      expect(r.code).toBe(1);
      const out = r.stdout + r.stderr;
      const refused = (where: string, name: string, holds: string) =>
        expect(out).toContain(
          `${where}: found \${env.${name}} in a field that is not secret, expected a variable that holds no credential: ${name} holds ${holds}`,
        );
      refused("canvases/listings/canvas.yaml:5:17: dashboard_body", "SVC_TOKEN", "the platform token");
      refused("canvases/listings/canvas.yaml:5:17: dashboard_body", "GITHUB_TOKEN", "a GitHub token");
      refused(
        "canvases/listings/loader.yaml:4:24: metadata.fused:description",
        "MAPBOX_TOKEN",
        "a secret value of this repository",
      );
      refused("svc.yaml:4:9: variables.city", "SVC_TOKEN", "the platform token");
      for (const value of [PLATFORM_TOKEN, GITHUB_TOKEN, FIXTURE_SECRETS.MAPBOX_TOKEN])
        expect(out).not.toContain(value);
      expect(platform.requests).toBe(0);
    }
  });

  it("WHEN a target names its own token variable (credentials.token_env) and a name_prefix reads it THEN it is refused the same way", async () => {
    const dir = copyRepo("valid-full");
    const svc = join(dir, "svc.yaml");
    writeFileSync(
      svc,
      readFileSync(svc, "utf8").replace(
        "    prune: true\n",
        "    prune: true\n    name_prefix: pr_${env.STAGING_SVC_TOKEN}_\n",
      ),
    );
    const r = await runInProcess("validate", [dir, "--target", "staging"], {
      ...env(),
      STAGING_SVC_TOKEN: "staging-token-0451-0451",
      STAGING_SVC_BASE_URL: platform.url,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /svc\.yaml:\d+:18: targets\.staging\.name_prefix: found \$\{env\.STAGING_SVC_TOKEN\} in a field that is not secret, expected a variable that holds no credential: STAGING_SVC_TOKEN holds the platform token/,
    );
    expect(r.stderr).not.toContain("staging-token-0451-0451");
  });

  it("WHEN a UDF's tests pass a secret value as an argument THEN that is allowed (a test only calls the deployed UDF, and its output is redacted), but not the platform token", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(
      join(dir, "canvases/listings/stats.yaml"),
      'tests:\n  - args: {key: "${env.MAPBOX_TOKEN}"}\n    expect: {}\n  - args: {key: "${env.SVC_TOKEN}"}\n    expect: {}\n',
    );
    const r = await runInProcess("validate", [dir], env());
    expect(r.code).toBe(1);
    expect(r.stderr.replaceAll(`${dir}/`, "").trim().split("\n")).toEqual([
      expect.stringMatching(
        /^canvases\/listings\/stats\.yaml:4:\d+: tests\[1\]\.args\.key: found \$\{env\.SVC_TOKEN\} in a field that is not secret/,
      ),
      expect.stringMatching(/^1 error in /),
    ]);
  });

  it("WHEN svc.yaml points base_url_env or udf_base_url_env at another variable (a PR_TITLE the workflow sets, holding the attacker's URL) THEN plan exits 1 at that key and the token goes nowhere", async () => {
    const seen: string[] = [];
    const attacker = createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      res.writeHead(500).end("{}");
    });
    await new Promise<void>((r) => attacker.listen(0, "127.0.0.1", r));
    const attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/v1`;
    try {
      for (const key of ["base_url_env", "udf_base_url_env"]) {
        const dir = copyRepo("valid-full");
        writeFileSync(
          join(dir, "svc.yaml"),
          `${readFileSync(join(dir, "svc.yaml"), "utf8")}  default:\n    credentials:\n      ${key}: PR_TITLE\n`,
        );
        platform.reset();
        const r = await runInProcess("plan", [dir], { ...env(), PR_TITLE: attackerUrl });
        expect(r.code).toBe(1);
        const suffix = key === "base_url_env" ? "SVC_BASE_URL" : "SVC_UDF_BASE_URL";
        expect(r.stderr).toContain(
          `targets.default.credentials.${key}: found "PR_TITLE", expected the name of an environment variable ending in ${suffix}, e.g. "STAGING_${suffix}": the platform token is sent to the URL it holds`,
        );
        expect(platform.requests).toBe(0);
      }
      expect(seen).toEqual([]);
    } finally {
      await new Promise<void>((r) => attacker.close(() => r()));
    }
  });
});
