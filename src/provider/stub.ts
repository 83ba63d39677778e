import { SvcError } from "../errors";
/**
 * The dynamic provider every svc resource carries in `__provider`: a stateless stub that captures
 * nothing but its kind's name, and loads the package's implementation
 * (`svc-iac/provider-runtime`) when the engine calls it, from the program's folder. No client,
 * schema or secret is baked into state, and upgrading the package upgrades behaviour.
 *
 * The stub is written here as module text, the form the dynamic-provider host evaluates
 * (`require-from-string`, then `handler()`), rather than left to the SDK's closure serializer,
 * which would make an equivalent module but loads a TypeScript compiler into the program (about
 * 300 ms) and hands the text over as an output every resource then awaits. Stacks whose state
 * holds the serializer's text (earlier versions of svc-iac) keep working: the host loads
 * whichever text a call carries, and the diff ignores `__provider`, so the upgrade shows no change.
 */

const texts = new Map<string, string>();

/** The module text of kind `kind`'s provider stub; the same string for every resource of a kind. */
export function providerText(kind: string): string {
  let text = texts.get(kind);
  if (text === undefined) {
    if (!/^[A-Z][A-Za-z]*$/.test(kind))
      throw new SvcError(
        "invalid_kind",
        `svc provider: invalid kind "${kind}". A kind is a PascalCase name such as "Udf".`,
      );
    text = stubModule(kind);
    texts.set(kind, text);
  }
  return text;
}

function stubModule(kind: string): string {
  return `exports.handler = () => {
  const kind = ${JSON.stringify(kind)};
  const runtime = () => require("svc-iac/provider-runtime");
  return {
    async configure(req) { await runtime().configure(req); },
    async check(olds, news) { return runtime().check(kind, olds, news); },
    async diff(id, olds, news) { return runtime().diff(kind, id, olds, news); },
    async create(inputs) { return runtime().create(kind, inputs); },
    async read(id, props) { return runtime().read(kind, id, props); },
    async update(id, olds, news) { return runtime().update(kind, id, olds, news); },
    async delete(id, props) { await runtime().remove(kind, id, props); },
  };
};
`;
}
