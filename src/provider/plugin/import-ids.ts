/**
 * Import and refresh from an id alone. For each kind: the id `pulumi import` takes (the README's
 * table is this one), and the inputs that declare an object, taken from the state `Read` returns,
 * so that the engine's import check (its Diff of the declared inputs against that state) is empty.
 * Values the platform never gives back are not among them: the user declares them after the import.
 */
import type { Props } from "./secrets";

export interface ImportId {
  /** The import id, with upper-case placeholders. */
  id: string;
  /** What the placeholder is, and where to find it. */
  where: string;
  /** The inputs `Read` returns with the object's state, taken from that state. */
  inputs: readonly string[];
  /** What the user declares after the import, when the platform cannot return it. */
  declareAfter?: string;
}

/** Every kind's import id. SessionToken has none (see {@link NOT_IMPORTABLE}). */
export const IMPORT_IDS: Record<string, ImportId> = {
  Canvas: {
    id: "CANVAS_ID",
    where: "the canvas's id (`svc-iac show`, or `GET /collection/exec-env`)",
    inputs: ["name", "accessScope", "allowPublicRead", "dashboardBody", "previewImageUrl"],
    declareAfter:
      "`passcode`, when the canvas has one: it is compared by fingerprint, so the same passcode is no change",
  },
  Udf: {
    id: "UDF_ID",
    where: "the UDF's id",
    inputs: ["canvasId", "slug", "code", "entrypoint", "headers", "metadata"],
    declareAfter:
      "`createSharedToken` is not known for a UDF made elsewhere; leave it out (a per-UDF token can only be minted at creation)",
  },
  CanvasShare: {
    id: "CANVAS_ID",
    where: "the id of the shared canvas (a canvas has at most one share)",
    inputs: ["canvasId"],
    declareAfter:
      "`rotation` is a trigger the platform does not store: leave it out at import; setting it later rotates the token",
  },
  Cronjob: {
    id: "CRONJOB_ID",
    where: "the cronjob's id",
    inputs: ["name", "schedule", "udfId", "udfArgs", "enabled", "description"],
  },
  Secret: {
    id: "SECRET_KEY",
    where: "the secret's key, e.g. `OPENAI_API_KEY`",
    inputs: ["key"],
    declareAfter:
      "`value` (required): it is compared by fingerprint with the platform's, so the same value is no change",
  },
  ServiceAccount: {
    id: "SERVICE_ACCOUNT_ID",
    where: "the service account's id",
    inputs: ["name"],
    declareAfter:
      "`rotation`, when the account was made by svc-iac with one: the value whose tag the account's name carries is no change. Its `token` cannot be read again and stays null",
  },
  BucketPolicy: {
    id: "BUCKET_NAME",
    where: "the S3 bucket's name",
    inputs: ["bucketName"],
  },
};

/** Why SessionToken has no import id. */
export const NOT_IMPORTABLE: Record<string, string> = {
  SessionToken:
    "not importable: the platform neither lists nor returns session tokens, and an id (kept in clear in state) must not hold the secret token; declare a new one",
};

/** The inputs that declare the object `state` describes (fields absent from the state stay absent). */
export function importInputs(kind: string, state: Props): Props {
  const fields = IMPORT_IDS[kind]?.inputs ?? [];
  return Object.fromEntries(
    fields.filter((f) => state[f] !== undefined && state[f] !== null).map((f) => [f, state[f]]),
  );
}
