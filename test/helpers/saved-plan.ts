/** Saved plans in tests: read, validated against the published JSON Schema, and the requests a run sends. */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "vitest";
import type { SavedPlan } from "../../src/reconcile/plan/saved-plan";

const schema = JSON.parse(readFileSync(resolve(__dirname, "../../schemas/plan.schema.json"), "utf8"));

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, validateFormats: false });
const validate = ajv.compile(schema);
const validatePlan = ajv.getSchema(`${schema.$id}#/$defs/plan`)!;

/** Errors of a plan (as `plan --json` prints it) against the schema's `plan` definition (empty when valid). */
export function planDocumentErrors(plan: unknown): string[] {
  // Through JSON, as every reader sees it (undefined fields vanish).
  return validatePlan(JSON.parse(JSON.stringify(plan)))
    ? []
    : (validatePlan.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
}

/** Errors of `doc` against `schemas/plan.schema.json` (empty when valid). */
export function planSchemaErrors(doc: unknown): string[] {
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
}

/** Reads the saved plan at `file`, asserting that it validates against the published schema. */
export function readValidSavedPlan(file: string): SavedPlan {
  const doc = JSON.parse(readFileSync(file, "utf8"));
  expect(planSchemaErrors(doc)).toEqual([]);
  return doc as SavedPlan;
}

/** Runs `body`, counting the HTTP requests it sends by method (through undici's diagnostics channel). */
export async function countingRequests<T>(
  body: () => Promise<T>,
): Promise<{ result: T; byMethod: Record<string, number>; writes: number }> {
  const byMethod: Record<string, number> = {};
  const onCreate = (m: unknown) => {
    const method = String((m as { request: { method: string } }).request.method);
    byMethod[method] = (byMethod[method] ?? 0) + 1;
  };
  subscribe("undici:request:create", onCreate);
  try {
    const result = await body();
    const writes = Object.entries(byMethod)
      .filter(([m]) => m !== "GET" && m !== "HEAD")
      .reduce((n, [, c]) => n + c, 0);
    return { result, byMethod, writes };
  } finally {
    unsubscribe("undici:request:create", onCreate);
  }
}
