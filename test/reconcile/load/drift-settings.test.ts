/**
 * `on_drift`, `flapping` and `notify` as the loader reads them: the most specific `on_drift` wins
 * (object settings, canvas.yaml, the target, the project; default report), and each mistake is an
 * error at its `file:line:column` with what was found and what was expected.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatLoadError, type LoadedProject } from "../../../src/model/desired";
import { loadRepository } from "../../../src/reconcile/load/index";
import { driftPolicyOf } from "../../../src/reconcile/plan/drift-policy";
import { copyRepo, FIXTURE_SECRETS } from "../../helpers/repo";

const append = (dir: string, file: string, text: string) =>
  writeFileSync(join(dir, file), `${readFileSync(join(dir, file), "utf8")}${text}`);

async function load(dir: string, target?: string): Promise<LoadedProject> {
  const r = await loadRepository(dir, {
    env: { ...FIXTURE_SECRETS, STAGING_SVC_TOKEN: "t" },
    ...(target ? { target } : {}),
  });
  if (!r.ok) throw new Error(r.errors.map(formatLoadError).join("\n"));
  return r.project;
}

describe("GIVEN on_drift at every level", () => {
  const dir = copyRepo("valid-full");
  append(dir, "svc.yaml", "on_drift: keep\n");
  writeFileSync(
    join(dir, "svc.yaml"),
    readFileSync(join(dir, "svc.yaml"), "utf8").replace("  prod:\n", "  prod:\n    on_drift: restore\n"),
  );
  writeFileSync(join(dir, "canvases/reports/canvas.yaml"), "on_drift: report\n");
  writeFileSync(join(dir, "canvases/reports/weekly.yaml"), "on_drift: restore\n");
  append(dir, "cronjobs/daily-stats.yaml", "on_drift: report\n");

  it("THEN the object's own setting wins over its canvas.yaml, canvas.yaml over svc.yaml, and the project's applies to the rest", async () => {
    const p = await load(dir);
    expect(driftPolicyOf(p, "udf.reports/weekly")).toEqual({
      policy: "restore",
      from: "on_drift in canvases/reports/weekly.yaml",
    });
    expect(driftPolicyOf(p, "canvas.reports")).toEqual({
      policy: "report",
      from: "on_drift in canvases/reports/canvas.yaml",
    });
    expect(driftPolicyOf(p, "cronjob.daily-stats")).toEqual({
      policy: "report",
      from: "on_drift in cronjobs/daily-stats.yaml",
    });
    expect(driftPolicyOf(p, "udf.listings/loader")).toEqual({ policy: "keep", from: "on_drift in svc.yaml" });
  });

  it("THEN a target's on_drift wins over the project's, and loses to canvas.yaml", async () => {
    const p = await load(dir, "prod");
    expect(driftPolicyOf(p, "udf.listings/loader")).toEqual({
      policy: "restore",
      from: "on_drift of target prod in svc.yaml",
    });
    expect(driftPolicyOf(p, "canvas.reports").policy).toBe("report");
  });

  it("THEN with none set the policy is report", async () => {
    const p = await load(copyRepo("valid-full"));
    expect(driftPolicyOf(p, "canvas.listings")).toEqual({ policy: "report", from: "the default on_drift" });
    expect(p.settings.flapping).toBeUndefined();
    expect(p.settings.notify).toBeUndefined();
  });
});

describe("GIVEN mistakes in on_drift, flapping and notify", () => {
  it("THEN each is an error at its file:line:column naming what was found and what was expected", async () => {
    const dir = copyRepo("valid-full");
    append(
      dir,
      "svc.yaml",
      "on_drift: resore\nflapping:\n  restores: 0\n  within: 7 days\nnotify:\n  - name: chat\n    url_env: https://hooks.example/x\n    events: [drift_found, drift_fixed]\n  - name: ops\n",
    );
    writeFileSync(join(dir, "canvases/reports/canvas.yaml"), "on_drift: true\n");
    const r = await loadRepository(dir, { env: FIXTURE_SECRETS });
    expect(r.ok).toBe(false);
    const errors = r.ok ? [] : r.errors.map(formatLoadError);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^canvases\/reports\/canvas\.yaml:1:11: on_drift: found true, expected .*report.*restore.*keep/,
        ),
        expect.stringMatching(/^svc\.yaml:21:11: on_drift: found "resore", expected .*did you mean restore\?/),
        expect.stringMatching(/^svc\.yaml:23:13: flapping\.restores: found 0, expected a whole number from 1 to 1000/),
        expect.stringMatching(/^svc\.yaml:24:11: flapping\.within: found "7 days", expected a duration/),
        expect.stringMatching(
          /^svc\.yaml:27:14: notify\[0\]\.url_env: found "https:\/\/hooks\.example\/x", expected the name of the environment variable holding the webhook URL/,
        ),
        expect.stringMatching(
          /^svc\.yaml:28:27: notify\[0\]\.events\[1\]: found "drift_fixed", expected one of apply_failed, .*drift_found/,
        ),
        expect.stringMatching(/^svc\.yaml:29:5: notify\[1\]\.url_env: required key "url_env" is missing/),
      ]),
    );
  });
});
