/** Errors the emulator answers with, in the spec's two body shapes (section 7). */
import { codeForStatus } from "../api/errors";
import { SvcError } from "../errors";
import type { z } from "zod";

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** An answer with a non-success status: `{detail: string}`, or `{detail: ValidationIssue[]}` for 422. */
export class HttpError extends SvcError {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationIssue[],
    readonly headers: Record<string, string> = {},
  ) {
    super(
      codeForStatus(status),
      typeof detail === "string" ? detail : detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; "),
    );
  }
}

export const badRequest = (detail: string) => new HttpError(400, detail);
export const unauthorized = (detail = "Not authenticated") => new HttpError(401, detail);
export const forbidden = (detail: string) => new HttpError(403, detail);
export const notFound = (detail = "Not found") => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);
export const tooLarge = (detail: string) => new HttpError(413, detail);

/** A 422 with one issue. `where` is `body`, `query` or `path`. */
export function invalid(
  where: string,
  field: (string | number)[] | string,
  msg: string,
  type = "value_error",
): HttpError {
  return new HttpError(422, [{ loc: [where, ...(Array.isArray(field) ? field : [field])], msg, type }]);
}

/** Converts zod issues into FastAPI-style validation entries under `where`. */
export function fromZodIssues(where: string, issues: readonly z.core.$ZodIssue[], input: unknown): ValidationIssue[] {
  return issues.map((i) => {
    const loc = [where, ...i.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    const present = valueAt(input, i.path as (string | number)[]) !== undefined;
    if (!present && (i.code === "invalid_type" || i.code === "invalid_value" || i.code === "invalid_union")) {
      return { loc, msg: "Field required", type: "missing" };
    }
    switch (i.code) {
      case "invalid_type":
        return { loc, msg: `Input should be a valid ${i.expected}`, type: `${i.expected}_type` };
      case "too_big":
        return {
          loc,
          msg:
            i.origin === "array" || i.origin === "string"
              ? `Should have at most ${i.maximum} items`
              : `Input should be less than or equal to ${i.maximum}`,
          type: i.origin === "array" || i.origin === "string" ? "too_long" : "less_than_equal",
        };
      case "too_small":
        return {
          loc,
          msg:
            i.origin === "array" || i.origin === "string"
              ? `Should have at least ${i.minimum} items`
              : `Input should be greater than or equal to ${i.minimum}`,
          type: i.origin === "array" || i.origin === "string" ? "too_short" : "greater_than_equal",
        };
      case "invalid_value":
        return {
          loc,
          msg: `Input should be ${i.values.map((v) => `'${String(v)}'`).join(" or ")}`,
          type: "literal_error",
        };
      case "unrecognized_keys":
        return { loc, msg: `Extra inputs are not permitted: ${i.keys.join(", ")}`, type: "extra_forbidden" };
      default:
        return { loc, msg: i.message, type: "value_error" };
    }
  });
}

function valueAt(input: unknown, path: (string | number)[]): unknown {
  let cur = input;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}
