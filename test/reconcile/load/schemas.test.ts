import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as K from "../../../src/reconcile/load/keys";
import { parse } from "yaml";

type Schema = Record<string, any>;
const schema = (name: string): Schema => JSON.parse(readFileSync(`schemas/${name}.schema.json`, "utf8"));
const keysOf = (s: Schema) => Object.keys(s.properties ?? {});

/** The parts of JSON Schema 2020-12 the shipped schemas use; enough to check fixtures "in spirit". */
function problems(s: Schema | boolean | undefined, v: unknown, at = "$"): string[] {
  if (s === true || s === undefined) return [];
  if (s === false) return [`${at}: not allowed`];
  const out: string[] = [];
  if (s.anyOf && !s.anyOf.some((x: Schema) => problems(x, v, at).length === 0))
    out.push(`${at}: matches none of anyOf`);
  if (s.oneOf && s.oneOf.filter((x: Schema) => problems(x, v, at).length === 0).length !== 1)
    out.push(`${at}: must match exactly one of oneOf`);
  if (s.enum && !s.enum.includes(v)) out.push(`${at}: not in enum`);
  if (s.type) {
    const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
    const actual = v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v;
    if (!types.some((t) => t === actual || (t === "number" && actual === "integer")))
      return [...out, `${at}: ${actual} is not ${types.join("|")}`];
  }
  if (typeof v === "string" && s.pattern && !new RegExp(s.pattern, "u").test(v))
    out.push(`${at}: does not match ${s.pattern}`);
  if (
    typeof v === "number" &&
    ((s.minimum !== undefined && v < s.minimum) || (s.maximum !== undefined && v > s.maximum))
  )
    out.push(`${at}: out of range`);
  if (Array.isArray(v)) {
    if ((s.minItems !== undefined && v.length < s.minItems) || (s.maxItems !== undefined && v.length > s.maxItems))
      out.push(`${at}: wrong length`);
    v.forEach((x, i) => out.push(...problems(s.items, x, `${at}[${i}]`)));
  }
  if (v && typeof v === "object" && !Array.isArray(v)) {
    for (const r of s.required ?? []) if (!(r in v)) out.push(`${at}: missing ${r}`);
    for (const [k, x] of Object.entries(v)) {
      if (s.propertyNames && problems(s.propertyNames, k).length) out.push(`${at}: bad key ${k}`);
      const sub = s.properties?.[k] ?? (s.additionalProperties === undefined ? true : s.additionalProperties);
      out.push(...problems(sub, x, `${at}.${k}`));
    }
  }
  return out;
}

describe("the JSON Schemas shipped for editors", () => {
  it("list exactly the keys the loader accepts, at every level", () => {
    const svc = schema("svc");
    const target = svc.properties.targets.additionalProperties;
    const canvas = schema("canvas");
    const udf = schema("udf");
    expect(keysOf(svc)).toEqual([...K.SVC_KEYS]);
    expect(keysOf(svc.properties.moved.items)).toEqual([...K.MOVED_KEYS]);
    expect(keysOf(target)).toEqual([...K.TARGET_KEYS]);
    expect(keysOf(target.properties.credentials)).toEqual([...K.CREDENTIALS_KEYS]);
    expect(keysOf(canvas)).toEqual([...K.CANVAS_KEYS]);
    expect(keysOf(canvas.properties.share)).toEqual([...K.SHARE_KEYS]);
    expect(keysOf(udf)).toEqual([...K.UDF_KEYS]);
    expect(keysOf(udf.properties.headers.items)).toEqual([...K.HEADER_KEYS]);
    expect(keysOf(schema("cronjob"))).toEqual([...K.CRONJOB_KEYS]);
    expect(keysOf(schema("secrets"))).toEqual([...K.SECRETS_KEYS]);
    expect(keysOf(schema("service-accounts"))).toEqual([...K.SERVICE_ACCOUNTS_KEYS]);
    expect(keysOf(schema("service-accounts").properties.service_accounts.additionalProperties)).toEqual([
      ...K.SERVICE_ACCOUNT_KEYS,
    ]);
    expect(keysOf(schema("bucket-policies"))).toEqual([...K.BUCKET_POLICIES_KEYS]);
    expect(keysOf(schema("bucket-policies").properties.bucket_policies.additionalProperties)).toEqual([
      ...K.BUCKET_POLICY_KEYS,
    ]);
  });

  it("are draft 2020-12, refuse unknown keys and describe every property", () => {
    for (const name of ["svc", "canvas", "udf", "cronjob", "secrets", "service-accounts", "bucket-policies"]) {
      const s = schema(name);
      expect(s.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(s.additionalProperties).toBe(false);
      for (const [key, p] of Object.entries<Schema>(s.properties)) expect(p.description, `${name}.${key}`).toBeTruthy();
    }
  });

  it("accept every file of the valid fixture", () => {
    const root = "test/fixtures/valid-full";
    const files: [string, string][] = [
      ["svc.yaml", "svc"],
      ["canvases/listings/canvas.yaml", "canvas"],
      ["canvases/reports/canvas.yaml", "canvas"],
      ["canvases/listings/loader.yaml", "udf"],
      ["cronjobs/daily-stats.yaml", "cronjob"],
      ["cronjobs/weekly_report.yaml", "cronjob"],
      ["secrets.yaml", "secrets"],
      ["service-accounts.yaml", "service-accounts"],
      ["bucket-policies.yaml", "bucket-policies"],
    ];
    for (const [file, name] of files) {
      const value = parse(readFileSync(`${root}/${file}`, "utf8")) ?? {};
      expect(problems(schema(name), value), file).toEqual([]);
    }
  });

  it("flag the mistakes the loader refuses: unknown keys, bad enums, literal secrets, two schedule forms", () => {
    expect(problems(schema("canvas"), { acces_scope: "team" })).not.toEqual([]);
    expect(problems(schema("canvas"), { access_scope: "private" })).not.toEqual([]);
    expect(problems(schema("secrets"), { secrets: { K: "literal" } })).not.toEqual([]);
    expect(problems(schema("cronjob"), { schedule: "0 6 * * *", minute: 0, udf: "a/b" })).not.toEqual([]);
  });
});
