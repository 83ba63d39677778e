import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRepository } from "../../../src/reconcile/load/index";
import { formatLoadError, type LoadResult } from "../../../src/model/desired";

const fixture = (name: string) => `test/fixtures/${name}`;

function errorsOf(r: LoadResult): string[] {
  if (r.ok) throw new Error("expected the load to fail");
  return r.errors.map(formatLoadError);
}

/** Real secret values given to the loader: none of them may appear in any message. */
const SECRET_ENV = {
  REPORTS_PASSCODE: "open-sesame-reports-7731",
  LISTINGS_PASSCODE: "open-sesame-listings-4410",
  MAPBOX_TOKEN: "pk.mapbox-real-token-9981",
};

describe("loading a repository with errors in every file kind", () => {
  it("reports every error of the run together, each at file:line:column with what was found and expected", async () => {
    // GIVEN a repository with at least one error of each kind, spread over every file
    // WHEN it is loaded
    const errors = errorsOf(await loadRepository(fixture("error-many"), { env: SECRET_ENV }));
    // THEN all of them are reported at once, sorted by file and position
    expect(errors).toEqual([
      "bucket-policies.yaml:4:1: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]",
      'canvases/bad-name:1:1: found canvas folder "bad-name", expected a canvas name of letters, digits and "_" only ([A-Za-z0-9_]+), e.g. "bad_name"',
      'canvases/listings/canvas.yaml:1:1: unknown key "acces_scope"; expected one of access_scope, allow_public_read, passcode, dashboard_body, preview_image_url, share, protect, on_drift; did you mean access_scope?',
      'canvases/listings/canvas.yaml:2:20: allow_public_read: found "no", expected true or false',
      "canvases/listings/canvas.yaml:3:11: passcode: found a literal value, expected exactly one ${env.NAME} reference: secret values come only from the environment (the value found is not shown)",
      'canvases/listings/canvas.yaml:4:17: dashboard_body: unknown variable "citty" in ${var.citty}; defined for target "default": city; did you mean city?',
      "canvases/listings/orphan.yaml:1:1: found record settings without code: none of orphan.py (a UDF), orphan.md (a note) or orphan.json (a widget) exists in canvases/listings/ (a <slug>.yaml holds the settings of the record beside it)",
      'canvases/listings/stats.yaml:4:11: headers[0].file: found "lib/utils.py", expected an existing file: canvases/listings/lib/utils.py does not exist',
      'canvases/listings/stats.yaml:6:11: headers[1].file: found "../../../outside.py", expected an existing file: ../outside.py does not exist',
      'canvases/listings/stats.yaml:7:11: position: found "first", expected a whole number of at least 0',
      "canvases/nosettings/canvas.yaml:1:1: not found: every canvas folder needs a canvas.yaml (an empty file takes the defaults)",
      'canvases/reports/canvas.yaml:1:15: access_scope: found "private", expected "team" or "public"',
      'canvases/reports/canvas.yaml:3:20: preview_image_url: found "the value of REPORTS_PASSCODE", expected an http(s) URL, e.g. "https://example.com/preview.png"',
      "canvases/reports/canvas.yaml:3:20: preview_image_url: found ${env.REPORTS_PASSCODE} in a field that is not secret, expected a variable that holds no credential: REPORTS_PASSCODE holds a secret value of this repository (secrets.yaml or a passcode reads it), which this field would show in plans and pull-request comments and store on the platform as plain text; put secret values in secrets.yaml",
      'canvases/reports/canvas.yaml:5:17: share.rotate_every: found "30 days", expected a duration: a whole number followed by m, h, d or w, e.g. "30d" or "12h"',
      "cronjobs/arrays.yaml:1:9: minute: found 2 values [0, 30], expected exactly one minute value (a whole number 0-59): the platform runs a cronjob at exactly one minute of each matching hour; to run several times an hour, declare one cronjob per minute value",
      "cronjobs/arrays.yaml:2:7: hour: found a list [25], expected a list of hour values 0-23 ([] means every hour)",
      'cronjobs/every-15.yaml:1:11: schedule: found minute field "*/15" in "*/15 * * * *", expected exactly one minute value (a whole number 0-59): the platform runs a cronjob at exactly one minute of each matching hour; to run several times an hour, declare one cronjob per minute value',
      'cronjobs/missing-udf.yaml:2:6: udf: found "listings/stat", expected a UDF of this repository: canvases/listings/stat.py does not exist; did you mean listings/stats?',
      "secrets.yaml:2:12: secrets.API_KEY: environment variable MISSING_API_KEY is not set; it holds the value of secret API_KEY",
      "secrets.yaml:3:16: secrets.LITERAL_KEY: found a literal value, expected exactly one ${env.NAME} reference: secret values come only from the environment (the value found is not shown)",
      'service-accounts.yaml:4:3: service_accounts: duplicate key "deployer" (first at line 2); each key may appear once',
      'svc.yaml:4:8: prune: found "yes", expected true or false',
      "svc.yaml:5:14: concurrency: found 100, expected a whole number from 1 to 64",
      'svc.yaml:8:5: targets.staging: unknown key "promt"; expected one of variables, prune, max_deletions, concurrency, state, name_prefix, name_suffix, credentials, history, on_drift',
    ]);
  });

  it("keeps the path inside the document apart from the message", async () => {
    const r = await loadRepository(fixture("error-many"), { env: SECRET_ENV });
    if (r.ok) throw new Error("expected errors");
    expect(r.errors.find((e) => e.file === "canvases/reports/canvas.yaml" && e.line === 5)).toEqual({
      file: "canvases/reports/canvas.yaml",
      line: 5,
      column: 17,
      path: "share.rotate_every",
      message: 'found "30 days", expected a duration: a whole number followed by m, h, d or w, e.g. "30d" or "12h"',
    });
  });

  it("never shows a secret value, not even one used by mistake in a plain field, nor a literal secret written in the repository", async () => {
    const r = await loadRepository(fixture("error-many"), { env: SECRET_ENV });
    const text = JSON.stringify(r);
    for (const value of [...Object.values(SECRET_ENV), "hunter2-literal-passcode", "sk-live-literal-value"]) {
      expect(text).not.toContain(value);
    }
  });
});

describe("a repository without svc.yaml", () => {
  it("says svc.yaml is missing at 1:1 and reports no echo errors for the variables it would define", async () => {
    expect(errorsOf(await loadRepository(fixture("error-svc-missing"), {}))).toEqual([
      'svc.yaml:1:1: svc.yaml not found: the repository root needs an svc.yaml naming the project (e.g. "project: listings"). To start a repository here, run: svc-iac init',
    ]);
  });
});

describe("targets and the environment", () => {
  it("refuses an unknown target at svc.yaml's targets key, listing the known ones", async () => {
    const errors = errorsOf(await loadRepository(fixture("valid-full"), { target: "produ", env: SECRET_ENV }));
    expect(errors).toEqual([
      'svc.yaml:8:1: targets: unknown target "produ"; known targets: default, prod, staging; did you mean prod?',
    ]);
  });

  it("names each missing environment variable of a secret, at the reference", async () => {
    const errors = errorsOf(await loadRepository(fixture("valid-full"), { env: {} }));
    expect(errors).toEqual([
      "canvases/listings/canvas.yaml:4:11: passcode: environment variable LISTINGS_PASSCODE is not set; it holds the value of passcode",
      "secrets.yaml:3:17: secrets.MAPBOX_TOKEN: environment variable MAPBOX_TOKEN is not set; it holds the value of secret MAPBOX_TOKEN",
    ]);
  });

  it("refuses an empty passcode without showing anything of it", async () => {
    const errors = errorsOf(
      await loadRepository(fixture("valid-full"), { env: { ...SECRET_ENV, LISTINGS_PASSCODE: "" } }),
    );
    expect(errors).toEqual([
      "canvases/listings/canvas.yaml:4:11: passcode: the value of LISTINGS_PASSCODE is empty; passcode must not be empty (omit it for none)",
    ]);
  });
});

describe("an error in svc.yaml that leaves other files' references unresolved", () => {
  const example = () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-broken-svc-"));
    cpSync("examples/repo", dir, { recursive: true, filter: (f) => !f.includes(".svc-iac") });
    return dir;
  };
  const env = { EXAMPLE_API_KEY: "example-api-key-value" };

  it("GIVEN a YAML syntax error in svc.yaml THEN it is the only error: the files that use its variables are not blamed", async () => {
    const dir = example();
    const svc = join(dir, "svc.yaml");
    writeFileSync(svc, readFileSync(svc, "utf8").replace("  report_hour: 6\n", "  report_hour: 6\n  bad: [\n"));
    expect(errorsOf(await loadRepository(dir, { env })).map((e) => e.split(": ")[0])).toEqual(["svc.yaml:18:1"]);
  });

  it("GIVEN a variable whose own value is wrong THEN its error is reported once, not again at every reference", async () => {
    const dir = example();
    const svc = join(dir, "svc.yaml");
    writeFileSync(svc, readFileSync(svc, "utf8").replace("  city: nyc\n", "  city: ${var.row_limit}\n"));
    expect(errorsOf(await loadRepository(dir, { env }))).toEqual([
      "svc.yaml:10:9: variables.city: variables cannot refer to other variables (found ${var.row_limit}); use a literal or ${env.NAME}",
    ]);
  });
});
