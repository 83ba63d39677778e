/**
 * The Pulumi argument interfaces of the svc resources. Generated from the kinds' definitions
 * (`src/kinds/<kind>/definition.ts`) by `npm run generate:schemas`: do not edit; edit the definition.
 */
import type * as pulumi from "@pulumi/pulumi";

export interface CanvasArgs {
  /**
   * The canvas name, unique in the team: letters, digits and underscores. Renaming updates in
   * place.
   * @example "sales_dashboard"
   */
  name: pulumi.Input<string>;
  /**
   * Who may use the canvas's shared links: the team, or anyone. On a shared canvas a change needs a
   * new share token (see `CanvasShare`).
   * @default "team"
   */
  accessScope?: pulumi.Input<"team" | "public">;
  /**
   * Whether anyone may read the canvas.
   * @default false
   */
  allowPublicRead?: pulumi.Input<boolean>;
  /**
   * An extra gate for shared links (`Authorization: Svc-Canvas-Passcode`). Secret: kept in state as
   * a fingerprint only.
   * @default none
   * @example pulumi.secret("correct-horse")
   */
  passcode?: pulumi.Input<string>;
  /**
   * The dashboard layout.
   * @default none
   */
  dashboardBody?: pulumi.Input<string>;
  /**
   * Thumbnail URL.
   * @default none
   * @example "https://example.com/preview.png"
   */
  previewImageUrl?: pulumi.Input<string>;
}

/**
 * A helper module of a UDF, importable by its code (`import utils`). Give `code` or `codePath`.
 */
export interface UdfHeaderArgs {
  /**
   * The Python module name; its file in the UDF body is `<moduleName>.py`.
   * @example "utils"
   */
  moduleName: pulumi.Input<string>;
  /**
   * The module's Python source.
   * @default none (then `codePath` is required)
   */
  code?: pulumi.Input<string>;
  /**
   * Path of a `.py` file holding the module, relative to the Pulumi program folder; read at every
   * preview and update, so editing the file updates the UDF.
   * @default none (then `code` is required)
   * @example "udfs/utils.py"
   */
  codePath?: pulumi.Input<string>;
}

export interface UdfArgs {
  /**
   * The canvas holding the UDF. Changing it moves the UDF to the other canvas, in place.
   * @example canvas.id
   */
  canvasId: pulumi.Input<string>;
  /**
   * URL-safe name, unique on its canvas: letters, digits, `_` and `-`. Renaming updates in place.
   * @example "load-listings"
   */
  slug: pulumi.Input<string>;
  /**
   * The UDF's Python source. Give `code` or `codePath`.
   * @default none (then `codePath` is required)
   * @example "@fused.udf\ndef udf(city: str = \"nyc\"):\n    ...\n"
   */
  code?: pulumi.Input<string>;
  /**
   * Path of a `.py` file holding the UDF's source, relative to the Pulumi program folder. Its
   * content (not the path) is compared, so editing the file updates the UDF in place.
   * @default none (then `code` is required)
   * @example "udfs/listings.py"
   */
  codePath?: pulumi.Input<string>;
  /**
   * The name of the function to call.
   * @default "udf"
   */
  entrypoint?: pulumi.Input<string>;
  /**
   * Helper modules importable by the code.
   * @default []
   * @example [{ moduleName: "utils", codePath: "udfs/utils.py" }]
   */
  headers?: pulumi.Input<pulumi.Input<UdfHeaderArgs>[]>;
  /**
   * Free-form metadata, namespaced keys.
   * @default {}
   * @example { "fused:description": "Loads listings", "fused:tags": ["demo"] }
   */
  metadata?: pulumi.Input<Record<string, unknown>>;
  /**
   * Mint a per-UDF shared token (`sharedToken`). The platform only mints it when the UDF is
   * created, so changing this replaces the UDF (the old one is deleted first: slugs are unique). A
   * UDF adopted by slug has no `sharedToken`.
   * @default false
   */
  createSharedToken?: pulumi.Input<boolean>;
}

export interface CanvasShareArgs {
  /**
   * The canvas to share. Changing it shares the other canvas (a replacement) and unshares this one.
   * @example canvas.id
   */
  canvasId: pulumi.Input<string>;
  /**
   * The real-time instance the shared UDFs run on. Changing it re-shares on the new instance and
   * keeps the token.
   * @default the available instance with the highest `preference_rank`
   * @example "rt-demo-primary"
   */
  clientId?: pulumi.Input<string>;
  /**
   * Any value; changing it rotates the share token: the old token, its links and its session tokens
   * stop working at once.
   * @default none
   * @example "2026-06"
   */
  rotation?: pulumi.Input<string | number>;
  /**
   * The canvas's access scope, normally `canvas.accessScope`. A token keeps the scope it was minted
   * under, so when this differs from it the diff says a rotation is required and the update rotates
   * the token (old links and session tokens stop working).
   * @default none (scope changes are not followed)
   * @example canvas.accessScope
   */
  accessScope?: pulumi.Input<"team" | "public">;
}

export interface CronjobArgs {
  /**
   * The cronjob's name, its identity in the team: a cronjob of that name is adopted. Renaming
   * updates in place.
   * @example "nightly_refresh"
   */
  name: pulumi.Input<string>;
  /**
   * When to run, as a cron expression `"minute hour day-of-month month day-of-week"` (UTC), or
   * `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`. Ranges, lists, steps and the names
   * `MON`-`SUN`, `JAN`-`DEC` are accepted. The minute must be ONE value: the platform runs a
   * cronjob at most once an hour. When both day fields are restricted, a day must match both. Give
   * this or the arrays (`minute` …), not both.
   * @example "0 6 * * MON-FRI"
   */
  schedule?: pulumi.Input<string>;
  /**
   * The one minute of the hour to run at (array form).
   * @example [0]
   */
  minute?: pulumi.Input<number | number[]>;
  /**
   * Hours 0-23 (array form).
   * @default every hour
   * @example [6, 18]
   */
  hour?: pulumi.Input<number[]>;
  /**
   * Days of the month 1-31 (array form).
   * @default [] (every day)
   */
  dayOfMonth?: pulumi.Input<number[]>;
  /**
   * Months 1-12 (array form).
   * @default [] (every month)
   */
  month?: pulumi.Input<number[]>;
  /**
   * Days of the week, 0 (or 7) = Sunday (array form).
   * @default [] (every day)
   * @example [1, 2, 3, 4, 5]
   */
  dayOfWeek?: pulumi.Input<number[]>;
  /**
   * The id of the UDF to run.
   * @example udf.id
   */
  udfId: pulumi.Input<string>;
  /**
   * Arguments passed to the UDF on each run.
   * @default none
   * @example { city: "nyc" }
   */
  udfArgs?: pulumi.Input<Record<string, unknown>>;
  /**
   * Whether the schedule is active; `false` pauses it and keeps the cronjob.
   * @default true
   */
  enabled?: pulumi.Input<boolean>;
  /**
   * Free text.
   * @default none
   */
  description?: pulumi.Input<string>;
}

export interface SecretArgs {
  /**
   * The secret's key, 1 to 256 characters. A new key replaces the secret (new written first).
   * @example "OPENAI_API_KEY"
   */
  key: pulumi.Input<string>;
  /**
   * The value. Always stored as a Pulumi secret, and kept in state only as a fingerprint; a change
   * updates in place.
   * @example config.requireSecret("openaiKey")
   */
  value: pulumi.Input<string>;
}

export interface ServiceAccountArgs {
  /**
   * The account's name; on the platform it reads `<name> [svc-iac <tag>]`. A change replaces it.
   * @example "ci-deployer"
   */
  name: pulumi.Input<string>;
  /**
   * Any value; changing it rotates the token: a new account is created, then the old one deleted.
   * @default none
   * @example "2025-06"
   */
  rotation?: pulumi.Input<unknown>;
}

export interface BucketPolicyArgs {
  /**
   * The S3 bucket to grant the environment's job and real-time roles access to. A change replaces.
   * @example "my-data-bucket"
   */
  bucketName: pulumi.Input<string>;
}

export interface SessionTokenArgs {
  /**
   * The canvas token to mint for (`fc_...`). Kept as a secret; a change replaces the session token.
   * @example share.shareToken
   */
  canvasToken: pulumi.Input<string>;
  /**
   * Lifetime in seconds, 1 to 86400 (24 hours). A change replaces the token.
   * @default 3600
   */
  ttl?: pulumi.Input<number>;
}
