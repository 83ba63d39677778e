/**
 * The serialized dynamic provider: a stateless stub. Pulumi serializes this object into every
 * resource's `__provider`; it captures nothing but the kind's name, and loads the package's
 * implementation (`svc-iac/provider-runtime`) when the engine calls it, from the program's folder.
 * No client, schema or secret is baked into state, and upgrading the package upgrades behaviour.
 */
import type * as pulumi from "@pulumi/pulumi";

/**
 * One provider object per kind, shared by every resource of that kind: the SDK caches the
 * serialized `__provider` text per provider object, so a program declaring thousands of resources
 * serializes each kind once instead of once per resource.
 */
const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

export function providerFor(kind: string): pulumi.dynamic.ResourceProvider {
  let provider = providers.get(kind);
  if (!provider) {
    provider = stubOf(kind);
    providers.set(kind, provider);
  }
  return provider;
}

function stubOf(kind: string): pulumi.dynamic.ResourceProvider {
  return {
    async configure(req) {
      await require("svc-iac/provider-runtime").configure(req);
    },
    async check(olds, news) {
      return require("svc-iac/provider-runtime").check(kind, olds, news);
    },
    async diff(id, olds, news) {
      return require("svc-iac/provider-runtime").diff(kind, id, olds, news);
    },
    async create(inputs) {
      return require("svc-iac/provider-runtime").create(kind, inputs);
    },
    async read(id, props) {
      return require("svc-iac/provider-runtime").read(kind, id, props);
    },
    async update(id, olds, news) {
      return require("svc-iac/provider-runtime").update(kind, id, olds, news);
    },
    async delete(id, props) {
      await require("svc-iac/provider-runtime").remove(kind, id, props);
    },
  };
}
