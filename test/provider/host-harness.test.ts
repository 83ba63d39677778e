import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderHost, serializeProvider } from "../helpers/provider-host";

describe("the dynamic-provider host harness", () => {
  let host: ProviderHost;
  beforeAll(async () => {
    host = await ProviderHost.start();
  });
  afterAll(async () => host?.stop());

  it("runs check, create, diff, update, read and delete of a serialized provider over gRPC", async () => {
    const provider = {
      async check(_olds: any, news: any) {
        return {
          inputs: { ...news, checked: true },
          failures: news.bad ? [{ property: "bad", reason: "bad is bad" }] : [],
        };
      },
      async create(inputs: any) {
        return { id: `id-${inputs.name}`, outs: { ...inputs, made: require("node:path").basename("/a/b") } };
      },
      async diff(_id: string, olds: any, news: any) {
        return { changes: olds.name !== news.name, replaces: olds.name !== news.name ? ["name"] : [] };
      },
      async update(_id: string, _olds: any, news: any) {
        return { outs: { ...news, updated: true } };
      },
      async read(id: string, props: any) {
        return { id, props: { ...props, read: true } };
      },
      async delete() {},
    };
    const __provider = await serializeProvider(provider);
    const urn = "urn:pulumi:test::proj::pulumi-nodejs:dynamic:Resource::r";
    const checked = await host.check(urn, {}, { __provider, name: "a" });
    expect(checked.inputs).toMatchObject({ name: "a", checked: true });
    expect((await host.check(urn, {}, { __provider, bad: true })).failures).toEqual([
      { property: "bad", reason: "bad is bad" },
    ]);
    const created = await host.create(urn, checked.inputs);
    expect(created).toMatchObject({ id: "id-a", properties: { made: "b", __provider } });
    expect(await host.diff(urn, created.id, created.properties, { __provider, name: "b" })).toEqual({
      changes: "some",
      replaces: ["name"],
      deleteBeforeReplace: false,
    });
    expect(
      (await host.update(urn, created.id, created.properties, { __provider, name: "a" })).properties,
    ).toMatchObject({ updated: true });
    expect((await host.read(urn, created.id, created.properties)).properties).toMatchObject({ read: true });
    await host.delete(urn, created.id, created.properties);
  });
});
