/**
 * Hand-built plans and reports for the renderer tests, with real-looking addresses, and secret
 * values planted where a careless renderer would print them.
 */
import type { ActionType, ApplyReport, DriftReport, Plan, PlannedAction } from "../../../src/reconcile/plan/plan-model";
import { traitsOf } from "../../../src/reconcile/phases";
import { withTextDiffs } from "../../../src/reconcile/render/text-diff";

/** Real secret values: none may appear in any rendered output. */
export const SECRETS = {
  passcode: "open-sesame-reports-7731",
  newPasscode: "open-sesame-reports-8842",
  mapbox: "pk.mapbox-real-token-9981",
  token: "svc_sa_live_Zq81hT6pPq0Xw",
};

export function expectNoSecrets(out: string): void {
  for (const value of Object.values(SECRETS)) {
    if (out.includes(value)) throw new Error(`output contains the secret value ${JSON.stringify(value)}`);
  }
}

const OLD_CODE =
  ["import pandas as pd", "", "def udf(bbox):", "    df = pd.read_csv('sales.csv')", "    return df"].join("\n") + "\n";
const NEW_CODE =
  [
    "import pandas as pd",
    "import numpy as np",
    "",
    "def udf(bbox):",
    "    df = pd.read_parquet('sales.parquet')",
    "    df['x'] = np.log(df.v)",
    "    return df",
  ].join("\n") + "\n";

/** A report UDF whose docstring holds a Markdown code fence: a diff of it must not end the Markdown fence around it. */
const OLD_REPORT =
  ["def udf():", '    """Weekly report.', "", "    ```", "    udf()", "    ```", '    """', "    return 1"].join("\n") +
  "\n";
const NEW_REPORT = OLD_REPORT.replace("    return 1", "    return 2");

/** `a` with the diffs the planner adds to its text fields (the kind's `textFields`). */
function withDiffs<T extends { kind: PlannedAction["kind"]; fields: PlannedAction["fields"] }>(a: T): T {
  return { ...a, fields: withTextDiffs(a.fields, traitsOf(a.kind).textFields) };
}

function summaryOf(actions: PlannedAction[]): Record<ActionType, number> {
  const summary: Record<ActionType, number> = {
    create: 0,
    adopt: 0,
    update: 0,
    rename: 0,
    replace: 0,
    delete: 0,
    share: 0,
    unshare: 0,
    rotate: 0,
    forget: 0,
  };
  for (const a of actions) summary[a.action]++;
  return summary;
}

const src = (file: string, line = 1) => ({ file, line, column: 1, path: "" });

export function samplePlan(): Plan {
  const actions = (
    [
      {
        address: "secret.MAPBOX_TOKEN",
        kind: "Secret",
        action: "update",
        id: "sec_01",
        fields: [
          // A secret value planted in from/to by mistake: the renderer must not print it.
          {
            field: "value",
            action: "update",
            secret: true,
            from: SECRETS.mapbox,
            to: SECRETS.mapbox + "-new",
            fromFingerprint: "hmac-sha256:0a1b2c3d4e5f",
            toFingerprint: "hmac-sha256:9f8e7d6c5b4a",
            diff: `-${SECRETS.mapbox}\n+${SECRETS.mapbox}-new`,
          },
        ],
        notes: [],
        source: src("secrets.yaml", 2),
      },
      {
        address: "service_account.ci",
        kind: "ServiceAccount",
        action: "create",
        fields: [],
        notes: [],
        source: src("service-accounts.yaml", 1),
      },
      {
        address: "canvas.sales",
        kind: "Canvas",
        action: "create",
        fields: [],
        notes: [],
        source: src("canvases/sales/canvas.yaml"),
      },
      {
        address: "canvas.reports",
        kind: "Canvas",
        action: "update",
        id: "cv_reports",
        fields: [
          {
            field: "accessScope",
            action: "update",
            secret: false,
            from: "team",
            to: "public",
            note: "a scope change on a shared canvas needs a new token",
          },
          {
            field: "passcode",
            action: "update",
            secret: true,
            fromFingerprint: "hmac-sha256:ab12ab12ab12",
            toFingerprint: "hmac-sha256:cd34cd34cd34",
          },
          {
            field: "dashboardBody",
            action: "update",
            secret: false,
            from: { layout: "grid", tiles: [1, 2] },
            to: { tiles: [1, 2, 3], layout: "grid" },
          },
        ],
        notes: [],
        source: src("canvases/reports/canvas.yaml"),
      },
      {
        address: "udf.sales/loader",
        kind: "Udf",
        action: "update",
        id: "udf_loader",
        fields: [
          { field: "code", action: "update", secret: false, from: OLD_CODE, to: NEW_CODE },
          { field: "position", action: "update", secret: false, from: 2, to: 0 },
        ],
        notes: [],
        source: src("canvases/sales/loader.yaml"),
        references: ["canvas.sales"],
      },
      {
        address: "udf.sales/stats",
        kind: "Udf",
        action: "replace",
        id: "udf_stats",
        fields: [{ field: "slug", action: "replace", secret: false, from: "stat", to: "stats" }],
        notes: [],
        source: src("canvases/sales/stats.yaml"),
        references: ["canvas.sales"],
      },
      {
        address: "udf.sales/legacy",
        kind: "Udf",
        action: "adopt",
        id: "udf_legacy",
        fields: [{ field: "isVisible", action: "update", secret: false, from: true, to: false }],
        notes: [],
        source: src("canvases/sales/legacy.yaml"),
        references: ["canvas.sales"],
      },
      {
        address: "share.sales",
        kind: "CanvasShare",
        action: "rotate",
        id: "sh_sales",
        fields: [],
        reason: "rotate_every 30d elapsed (last rotation 2026-10-01)",
        notes: ["session tokens minted for the old token stop working"],
        source: src("canvases/sales/canvas.yaml", 6),
        references: ["canvas.sales"],
      },
      {
        address: "cronjob.daily",
        kind: "Cronjob",
        action: "delete",
        id: "cron_7",
        fields: [],
        notes: [],
        references: ["udf.sales/old"],
      },
    ] satisfies PlannedAction[] as PlannedAction[]
  ).map(withDiffs);
  return {
    version: 1,
    project: "sales-dashboards",
    target: "staging",
    actions,
    summary: summaryOf(actions),
    orphans: [{ address: "canvas.old_sales", kind: "Canvas", id: "cv_old" }],
    unmanaged: [{ address: "bucket_policy.demo-bucket", kind: "BucketPolicy", id: "demo-bucket" }],
    blocks: [
      {
        rule: "max-deletions",
        message: "the plan deletes 1 object, more than max_deletions (0); run with --max-deletions 1 to allow it",
      },
    ],
    warnings: ["service_account.ci: no destination for its token; use --outputs or --discard-tokens"],
  };
}

export function emptyPlan(): Plan {
  return {
    version: 1,
    project: "sales-dashboards",
    target: "default",
    actions: [],
    summary: summaryOf([]),
    orphans: [],
    unmanaged: [],
    blocks: [],
    warnings: [],
  };
}

/** A plan of `n` UDF updates, each with a few field changes. */
export function bigPlan(n: number): Plan {
  const actions: PlannedAction[] = [];
  for (let i = 0; i < n; i++) {
    const address = `udf.sales/loader_${String(i).padStart(4, "0")}`;
    actions.push(
      withDiffs({
        address,
        kind: "Udf",
        action: i % 10 === 0 ? "create" : "update",
        id: i % 10 === 0 ? undefined : `udf_${i}`,
        fields:
          i % 10 === 0
            ? []
            : [
                { field: "code", action: "update", secret: false, from: OLD_CODE, to: NEW_CODE },
                { field: "position", action: "update", secret: false, from: i, to: i + 1 },
              ],
        notes: [],
        source: src(`canvases/sales/loader_${i}.yaml`),
      }),
    );
  }
  return { ...emptyPlan(), actions, summary: summaryOf(actions) };
}

export function sampleReport(ok = false): ApplyReport {
  return {
    version: 1,
    project: "sales-dashboards",
    target: "staging",
    ok,
    results: [
      { address: "service_account.ci", kind: "ServiceAccount", action: "create", status: "done", id: "sa_1" },
      { address: "canvas.sales", kind: "Canvas", action: "create", status: "done", id: "cv_sales" },
      { address: "udf.sales/loader", kind: "Udf", action: "update", status: "done", id: "udf_loader" },
      ...(ok
        ? []
        : [
            {
              address: "udf.sales/x",
              kind: "Udf" as const,
              action: "create" as const,
              status: "failed" as const,
              message: "409 Conflict: a UDF with slug x already exists",
            },
            {
              address: "share.sales",
              kind: "CanvasShare" as const,
              action: "share" as const,
              status: "skipped" as const,
              message: "udf.sales/x failed",
            },
          ]),
    ],
    counts: ok ? { done: 3, failed: 0, skipped: 0 } : { done: 3, failed: 1, skipped: 1 },
    published: [
      {
        address: "service_account.ci",
        to: ["outputs file .svc-iac/outputs.json", "GitHub secret SVC_SERVICE_ACCOUNT_CI_TOKEN"],
      },
    ],
  };
}

export function sampleDrift(): DriftReport {
  return {
    version: 1,
    project: "sales-dashboards",
    target: "prod",
    drift: true,
    items: [
      {
        address: "canvas.reports",
        kind: "Canvas",
        class: "changed",
        id: "cv_reports",
        fields: [
          { field: "accessScope", action: "update", secret: false, from: "public", to: "team" },
          {
            field: "passcode",
            action: "update",
            secret: true,
            from: SECRETS.passcode,
            to: SECRETS.newPasscode,
            fromFingerprint: "hmac-sha256:ab12ab12ab12",
            toFingerprint: "hmac-sha256:cd34cd34cd34",
          },
        ],
        source: src("canvases/reports/canvas.yaml", 1),
        commands: {
          restore: "svc-iac apply --target prod --only canvas.reports",
          keep: "svc-iac import --target prod --keep canvas.reports",
        },
      },
      {
        address: "secret.MAPBOX_TOKEN",
        kind: "Secret",
        class: "changed",
        id: "sec_01",
        fields: [
          {
            field: "value",
            action: "update",
            secret: true,
            fromFingerprint: "hmac-sha256:0a1b2c3d4e5f",
            toFingerprint: "hmac-sha256:9f8e7d6c5b4a",
          },
        ],
        source: src("secrets.yaml", 2),
        commands: {
          restore: "svc-iac apply --target prod --only secret.MAPBOX_TOKEN",
          keepUnavailable: "a secret's value never leaves the platform",
        },
      },
      withDiffs({
        address: "udf.sales/report",
        kind: "Udf",
        class: "changed",
        id: "udf_report",
        fields: [
          { field: "code", action: "update", secret: false, from: OLD_REPORT, to: NEW_REPORT },
          {
            field: "metadata",
            action: "update",
            secret: false,
            from: { "fused:description": "Weekly" },
            to: { "fused:tags": ["sales"], "fused:description": "Weekly report" },
          },
        ],
        source: src("canvases/sales/report.py", 1),
        commands: {
          restore: "svc-iac apply --target prod --only udf.sales/report",
          keep: "svc-iac import --target prod --keep udf.sales/report",
        },
      }),
      {
        address: "udf.sales/loader",
        kind: "Udf",
        class: "missing",
        id: "udf_loader",
        fields: [],
        source: src("canvases/sales/loader.yaml", 1),
      },
      { address: "canvas.old_sales", kind: "Canvas", class: "orphaned", id: "cv_old", fields: [] },
      { address: "cronjob.nightly", kind: "Cronjob", class: "unmanaged", id: "cron_9", fields: [] },
      {
        address: "share.sales",
        kind: "CanvasShare",
        class: "pending",
        fields: [],
        source: src("canvases/sales/canvas.yaml", 6),
      },
    ],
    counts: { changed: 3, missing: 1, orphaned: 1, unmanaged: 1, pending: 1 },
    fingerprint: "sha256:77aa88bb99cc",
  };
}

export function bigDrift(n: number): DriftReport {
  const items: DriftReport["items"] = [];
  for (let i = 0; i < n; i++) {
    items.push(
      withDiffs({
        address: `udf.sales/f_${String(i).padStart(4, "0")}`,
        kind: "Udf",
        class: "changed",
        id: `udf_${i}`,
        fields: [{ field: "code", action: "update", secret: false, from: OLD_CODE, to: NEW_CODE }],
        source: src(`canvases/sales/f_${i}.yaml`),
      }),
    );
  }
  return { ...sampleDrift(), items, counts: { changed: n, missing: 0, orphaned: 0, unmanaged: 0, pending: 0 } };
}

/**
 * A first apply of `canvases` canvases with `perCanvas` UDFs each (`u00000`, …), plus an update
 * with a diff and two secrets: what apply groups and what it must not.
 */
export function bulkPlan(canvases: number, perCanvas: number): Plan {
  const actions: PlannedAction[] = [
    { address: "secret.A", kind: "Secret", action: "create", fields: [], notes: [] },
    { address: "secret.B", kind: "Secret", action: "create", fields: [], notes: [] },
  ];
  for (let c = 0; c < canvases; c++) {
    const canvas = `c${String(c).padStart(2, "0")}`;
    actions.push({
      address: `canvas.${canvas}`,
      kind: "Canvas",
      action: "create",
      fields: [{ field: "name", action: "update", secret: false, to: canvas }],
      notes: [],
    });
  }
  for (let c = 0; c < canvases; c++) {
    const canvas = `c${String(c).padStart(2, "0")}`;
    for (let i = 0; i < perCanvas; i++) {
      const slug = `u${String(c * perCanvas + i).padStart(5, "0")}`;
      actions.push({
        address: `udf.${canvas}/${slug}`,
        kind: "Udf",
        action: "create",
        fields: [{ field: "slug", action: "update", secret: false, to: slug }],
        notes: [],
        references: [`canvas.${canvas}`],
      });
    }
  }
  actions.push(
    withDiffs({
      address: "udf.reports/loader",
      kind: "Udf",
      action: "update",
      id: "udf_loader",
      fields: [{ field: "code", action: "update", secret: false, from: OLD_CODE, to: NEW_CODE }],
      notes: [],
      references: ["canvas.reports"],
    }),
  );
  return { ...emptyPlan(), actions, summary: summaryOf(actions) };
}
