/**
 * The Pulumi package schema (`schemas/pulumi/schema.json`, what the provider plugin's `GetSchema`
 * answers) keeps the rules of Pulumi's package schema format for the parts it uses
 * (`pulumi-package-rules.ts`, written from reading Pulumi's metaschema), and says what the kinds
 * say: every resource, its required inputs, its secrets and what replaces it.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { KINDS } from "../../src/kinds/registry";
import { pulumiPackageSchema } from "../../src/kinds/schema/pulumi-package";
import { PACKAGE_RULES } from "./pulumi-package-rules";

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(PACKAGE_RULES);
const schema = pulumiPackageSchema("1.2.3");

describe("GIVEN the generated Pulumi package schema", () => {
  it("THEN it keeps the rules of Pulumi's package schema format", () => {
    expect(validate(schema) ? [] : validate.errors).toEqual([]);
  });

  it("THEN a schema with a wrong property type, a misspelt key or a bad token is refused (the check can fail)", () => {
    const broken = structuredClone(schema) as any;
    broken.resources["svc:index:Canvas"].inputProperties.name.type = "text";
    expect(validate(broken)).toBe(false);
    const misspelt = structuredClone(schema) as any;
    misspelt.resources["svc:index:Udf"].inputProperties.createSharedToken.replaceOnChange = true;
    expect(validate(misspelt)).toBe(false);
    const token = structuredClone(schema) as any;
    token.resources["svc index Canvas"] = token.resources["svc:index:Canvas"];
    expect(validate(token)).toBe(false);
  });

  it("THEN it names package svc, the given version, and one resource per kind with its token", () => {
    expect(schema.name).toBe("svc");
    expect(schema.version).toBe("1.2.3");
    expect(Object.keys(schema.resources).sort()).toEqual(
      Object.keys(KINDS)
        .map((k) => `svc:index:${k}`)
        .sort(),
    );
    expect(Object.keys(schema.resources)).toEqual(
      ["Canvas", "Udf", "CanvasShare", "Cronjob", "Secret", "ServiceAccount", "BucketPolicy", "SessionToken"].map(
        (k) => `svc:index:${k}`,
      ),
    );
  });

  it("THEN required inputs, secrets and replace-on-change are those of the kinds", () => {
    const r = schema.resources;
    expect(r["svc:index:Canvas"].requiredInputs).toEqual(["name"]);
    expect(r["svc:index:Udf"].requiredInputs).toEqual(["canvasId", "slug"]);
    expect(r["svc:index:Cronjob"].requiredInputs).toEqual(["name", "udfId"]);
    expect(r["svc:index:Secret"].requiredInputs).toEqual(["key", "value"]);
    expect(r["svc:index:Secret"].inputProperties.value.secret).toBe(true);
    expect(r["svc:index:Secret"].properties.valueFingerprint.secret).toBe(true);
    expect(r["svc:index:Secret"].properties).not.toHaveProperty("value");
    expect(r["svc:index:Canvas"].inputProperties.passcode.secret).toBe(true);
    expect(r["svc:index:SessionToken"].inputProperties.canvasToken).toMatchObject({
      secret: true,
      replaceOnChanges: true,
    });
    expect(r["svc:index:ServiceAccount"].properties.token.secret).toBe(true);
    expect(r["svc:index:CanvasShare"].properties.shareToken.secret).toBe(true);
    expect(r["svc:index:Udf"].inputProperties.createSharedToken).toMatchObject({
      replaceOnChanges: true,
      default: false,
    });
    expect(r["svc:index:CanvasShare"].properties.canvasId.replaceOnChanges).toBe(true);
    expect(r["svc:index:Canvas"].inputProperties.accessScope).toMatchObject({
      $ref: "#/types/svc:index:AccessScope",
      default: "team",
    });
    expect(r["svc:index:Udf"].inputProperties.headers).toMatchObject({
      type: "array",
      items: { $ref: "#/types/svc:index:UdfHeader" },
    });
    expect(schema.types["svc:index:UdfHeader"]).toMatchObject({ type: "object", required: ["moduleName"] });
  });

  it("THEN the provider's configuration is the plugin's: secret tokens, each with its SVC_* fallback", () => {
    expect(schema.config.variables.token).toMatchObject({ secret: true, defaultInfo: { environment: ["SVC_TOKEN"] } });
    expect(schema.config.variables.serviceToken).toMatchObject({
      secret: true,
      defaultInfo: { environment: ["SVC_SERVICE_TOKEN"] },
    });
    expect(schema.config.variables.baseUrl.defaultInfo).toEqual({ environment: ["SVC_BASE_URL"] });
  });
});
