/**
 * What the loader, `import --keep` and the generators read from a kind's definition
 * (`<kind>/definition.ts`), so that none of them writes a kind's keys, defaults or keep places a
 * second time: the keys of an object and of its list items, the map from each input to the key it
 * is written under, the places `import --keep` writes to, and an input's default. Pure functions of
 * pure data; imports only the definitions.
 */
import { KIND_DEFINITIONS } from "./definitions";
import type { KindDefinition } from "./kind-definition";
import type { JsonSchema, RepositoryDefinition } from "./repository-keys";
import { SvcError } from "../errors";

/** The kind's repository definition; throws for a kind a repository cannot declare. */
export function repositoryOf(d: KindDefinition): RepositoryDefinition {
  if (!d.repository) throw new SvcError("kind_definition_invalid", `${d.kind} has no repository definition`);
  return d.repository;
}

/** The keys of one object of a kind, in the order the schema lists them. */
export const keysOf = (r: RepositoryDefinition): readonly string[] => Object.keys(r.keys);

/** The keys of the objects in a list key's items (a UDF's `headers:`, `tests:`). */
export const itemKeysOf = (r: RepositoryDefinition, key: string): readonly string[] =>
  Object.keys(((r.keys[key]?.schema.items ?? {}) as JsonSchema).properties ?? {});

/** The top-level key of a file that lists a kind's objects by name (`secrets:`). */
export function listKeyOf(d: KindDefinition): readonly string[] {
  const key = repositoryOf(d).file?.listedUnder?.key;
  if (!key) throw new SvcError("kind_definition_invalid", `${d.kind} is not listed by name in a file`);
  return [key];
}

/**
 * Each field a repository key fills (as plans name it) ← the key it is written under, prefixed by
 * `under` (`share.client_id`) for a kind declared inside another's file. Secret inputs are left
 * out: they are always references to the environment and never kept.
 */
export function inputKeysOf(d: KindDefinition, r: RepositoryDefinition = repositoryOf(d), under = "") {
  const out: Record<string, string> = {};
  for (const [key, k] of Object.entries(r.keys)) {
    const field = k.field ?? k.input;
    if (field && !d.inputs[field]?.secret) out[field] = `${under}${key}`;
  }
  return out;
}

/** Where a field lives: the object's source file (a UDF's `.py`), or a top-level key of its YAML file. */
export type KeepPlace =
  | { in: "code" }
  | {
      in: "yaml";
      key: string;
      /** The value the loader takes when the key is absent: keeping it removes the key (or leaves it absent). */
      default?: unknown;
    };

/** The places `import --keep` writes a kind's drifted fields to; undefined when it writes none back. */
export function keepPlacesOf(d: KindDefinition): Readonly<Record<string, KeepPlace>> | undefined {
  const r = d.repository;
  if (!r) return undefined;
  const places: Record<string, KeepPlace> = r.keepInSource ? { [r.keepInSource]: { in: "code" } } : {};
  for (const [key, k] of Object.entries(r.keys)) {
    const field = k.field ?? k.input;
    if (!k.keep || !field) continue;
    const fallback = k.schema.default;
    places[field] = { in: "yaml", key, ...(fallback === undefined ? {} : { default: fallback }) };
  }
  return Object.keys(places).length ? places : undefined;
}

/** Every kind's keep places, by kind (kinds `import --keep` writes nothing back for are absent). */
export const KEEP_PLACES: Readonly<Record<string, Readonly<Record<string, KeepPlace>>>> = Object.fromEntries(
  KIND_DEFINITIONS.flatMap((d) => {
    const places = keepPlacesOf(d);
    return places ? [[d.kind, places]] : [];
  }),
);

/** The default of an input, as its definition declares it; throws when it declares none. */
export function inputDefault<T extends string | number | boolean>(d: KindDefinition, input: string): T {
  const value = d.inputs[input]?.default;
  if (value === undefined) throw new SvcError("kind_definition_invalid", `${d.kind}.${input} declares no default`);
  return value as T;
}
