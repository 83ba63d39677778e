/**
 * `svc-iac/policy`: the rules of policies.yaml as a Pulumi CrossGuard pack. Each policy's
 * `validateResource` is called as the policy SDK calls it, with the arguments of a resource of the
 * provider plugin (`svc:index:Canvas`) or of the dynamic resources (`pulumi-nodejs:dynamic/svc:Canvas`).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Secret, type ResourceValidationArgs, type ResourceValidationPolicy } from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import { PolicyFileError, svcPolicies } from "../../src/policy/pulumi-pack";
import { STARTER_POLICIES } from "../../src/policy/starter";

function rulesFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "svc-pack-")), "policies.yaml");
  writeFileSync(file, text);
  return file;
}

function args(type: string, name: string, props: Record<string, unknown>): ResourceValidationArgs {
  return {
    type,
    name,
    props,
    urn: `urn:pulumi:dev::demo::${type}::${name}`,
    opts: {} as never,
    stackTags: new Map(),
    isType: () => false,
    asType: () => undefined,
    getConfig: () => ({}) as never,
  } as unknown as ResourceValidationArgs;
}

async function violations(policy: ResourceValidationPolicy, a: ResourceValidationArgs): Promise<string[]> {
  const found: string[] = [];
  const validate = policy.validateResource;
  for (const v of Array.isArray(validate) ? validate : [validate!]) await v(a, (message) => found.push(message));
  return found;
}

describe("GIVEN the starter rules loaded by svcPolicies(path)", () => {
  const policies = svcPolicies(rulesFile(STARTER_POLICIES)) as ResourceValidationPolicy[];
  const byName = (n: string) => policies.find((p) => p.name === n)!;

  it("THEN each object rule is a policy with its severity as the enforcement level, and the plan rule is left out", () => {
    expect(policies.map((p) => `${p.name} ${p.enforcementLevel}`)).toEqual([
      "public-canvas-needs-passcode mandatory",
      "cronjobs-at-night advisory",
      "udf-names advisory",
    ]);
  });

  it("WHEN a public canvas without a passcode is checked THEN the pack rejects it, for the plugin's and the dynamic resource alike", async () => {
    for (const type of ["svc:index:Canvas", "pulumi-nodejs:dynamic/svc:Canvas"]) {
      expect(
        await violations(byName("public-canvas-needs-passcode"), args(type, "x", { name: "x", accessScope: "public" })),
      ).toEqual(["canvas.x is public without a passcode: add passcode: ${env.NAME} or set access_scope: team"]);
    }
  });

  it("WHEN the canvas has a passcode (a Pulumi secret), is a team canvas, or the resource is not svc's THEN nothing is reported, and the passcode never shows", async () => {
    const rule = byName("public-canvas-needs-passcode");
    expect(
      await violations(
        rule,
        args("svc:index:Canvas", "x", { accessScope: "public", passcode: new Secret("pc-secret-77") }),
      ),
    ).toEqual([]);
    expect(
      await violations(rule, args("svc:index:Canvas", "x", { accessScope: "public", passcode: "pc-secret-77" })),
    ).toEqual([]);
    expect(await violations(rule, args("svc:index:Canvas", "x", { accessScope: "team" }))).toEqual([]);
    expect(await violations(rule, args("aws:s3/bucket:Bucket", "x", { accessScope: "public" }))).toEqual([]);
  });

  it("WHEN a UDF's slug is not snake_case THEN the advisory rule reports it, quoting the slug", async () => {
    expect(
      await violations(byName("udf-names"), args("svc:index:Udf", "loader", { slug: "Loader", code: "x" })),
    ).toEqual(["udf.loader: the UDF name Loader is not lower snake_case"]);
  });
});

describe("GIVEN a rule whose message quotes the passcode", () => {
  it("WHEN it reports a canvas THEN the message says (sensitive), never the value", async () => {
    const [policy] = svcPolicies(
      rulesFile(
        "rules:\n  - name: no-passcode\n    match: kind == 'canvas'\n    rule: '!has(object.passcode)'\n    message: 'passcode is {{ object.passcode }}'\n",
      ),
    ) as ResourceValidationPolicy[];
    for (const passcode of ["pc-secret-77", new Secret("pc-secret-77")])
      expect(await violations(policy!, args("svc:index:Canvas", "x", { passcode }))).toEqual([
        "passcode is (sensitive)",
      ]);
  });
});

describe("GIVEN rules that do not compile", () => {
  it("WHEN svcPolicies loads them THEN it throws naming file:line:column and the unknown field", () => {
    const file = rulesFile(
      "rules:\n  - name: r\n    match: kind == 'canvas'\n    rule: object.acces_scope == 'team'\n    message: m\n",
    );
    let error: unknown;
    try {
      svcPolicies(file);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PolicyFileError);
    expect((error as Error).message).toContain(`${file}:4:17: rules[0].rule: unknown field "acces_scope" of object`);
  });
});
