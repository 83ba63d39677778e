import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failure } from "../helpers/emulator";
import { outputsPublisher, readOutputsFile, tokenEnvName } from "../../src/reconcile/apply/outputs-file";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-outputs-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const now = () => new Date("2026-03-01T10:00:00.000Z");
const CI_TOKEN = "svc_sa_4f1c9e2b7d_secret-value";
const SHARE_TOKEN = "shr_9a8b7c6d5e4f_secret-value";

describe("the outputs file", () => {
  it("is created with its folder, readable by its owner only, holding the token by address", async () => {
    const file = join(dir, ".svc-iac", "outputs.json");
    const pub = outputsPublisher(file, { now });
    expect(pub.name).toBe(`outputs file ${file}`);
    await pub.publish({
      address: "service_account.ci",
      kind: "ServiceAccount",
      name: "SVC_SERVICE_ACCOUNT_CI_TOKEN",
      token: CI_TOKEN,
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe(
      `${JSON.stringify(
        {
          tokens: {
            "service_account.ci": {
              kind: "ServiceAccount",
              name: "SVC_SERVICE_ACCOUNT_CI_TOKEN",
              token: CI_TOKEN,
              updatedAt: "2026-03-01T10:00:00.000Z",
            },
          },
          version: 1,
        },
        null,
        2,
      )}\n`,
    );
    expect(readdirSync(join(dir, ".svc-iac"))).toEqual(["outputs.json"]);
  });

  it("merges new tokens with the ones already there, replacing only the same address", async () => {
    const file = join(dir, "outputs.json");
    const pub = outputsPublisher(file, { now });
    await pub.publish({
      address: "share.sales",
      kind: "CanvasShare",
      name: "SVC_SHARE_SALES_TOKEN",
      token: SHARE_TOKEN,
    });
    await pub.publish({
      address: "service_account.ci",
      kind: "ServiceAccount",
      name: "SVC_SERVICE_ACCOUNT_CI_TOKEN",
      token: "old-token-1",
    });
    await outputsPublisher(file, { now }).publish({
      address: "service_account.ci",
      kind: "ServiceAccount",
      name: "SVC_SERVICE_ACCOUNT_CI_TOKEN",
      token: CI_TOKEN,
    });
    const out = await readOutputsFile(file);
    expect(Object.keys(out!.tokens)).toEqual(["service_account.ci", "share.sales"]);
    expect(out!.tokens["service_account.ci"].token).toBe(CI_TOKEN);
    expect(out!.tokens["share.sales"].token).toBe(SHARE_TOKEN);
  });

  it("keeps every token when several are published at once", async () => {
    const file = join(dir, "outputs.json");
    const addresses = ["service_account.a", "service_account.b", "share.c", "udf.d/e"];
    await Promise.all(
      addresses.map((a) =>
        outputsPublisher(file, { now }).publish({ address: a, kind: "X", name: tokenEnvName(a), token: `tok-${a}` }),
      ),
    );
    expect(Object.keys((await readOutputsFile(file))!.tokens)).toEqual(addresses);
  });

  it("narrows an existing file that others could read to mode 0600", async () => {
    const file = join(dir, "outputs.json");
    writeFileSync(file, JSON.stringify({ version: 1, tokens: {} }));
    chmodSync(file, 0o644);
    await outputsPublisher(file, { now }).publish({
      address: "share.sales",
      kind: "CanvasShare",
      name: "SVC_SHARE_SALES_TOKEN",
      token: SHARE_TOKEN,
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("refuses to overwrite a file that is not an outputs file, naming it without quoting its content", async () => {
    const file = join(dir, "outputs.json");
    writeFileSync(file, `{"tokens": "${CI_TOKEN}"`);
    const e = await failure(
      outputsPublisher(file).publish({
        address: "share.sales",
        kind: "CanvasShare",
        name: "SVC_SHARE_SALES_TOKEN",
        token: SHARE_TOKEN,
      }),
    );
    expect(e.message).toContain(`The outputs file ${file} is not valid JSON`);
    expect(e.message).not.toContain(CI_TOKEN);
    expect(e.message).not.toContain(SHARE_TOKEN);
    writeFileSync(file, JSON.stringify({ something: "else" }));
    expect((await failure(readOutputsFile(file))).message).toContain(
      `The outputs file ${file} is not an svc-iac outputs file`,
    );
    expect(readFileSync(file, "utf8")).toBe('{"something":"else"}');
  });
});

describe("the environment variable name of a token", () => {
  it("is SVC_, the address upper-cased with every run of other characters as _, and _TOKEN", () => {
    expect(tokenEnvName("service_account.ci-bot")).toBe("SVC_SERVICE_ACCOUNT_CI_BOT_TOKEN");
    expect(tokenEnvName("share.sales")).toBe("SVC_SHARE_SALES_TOKEN");
    expect(tokenEnvName("udf.sales/loader")).toBe("SVC_UDF_SALES_LOADER_TOKEN");
    expect(tokenEnvName("udf.Sales--2/load er")).toBe("SVC_UDF_SALES_2_LOAD_ER_TOKEN");
  });
});
