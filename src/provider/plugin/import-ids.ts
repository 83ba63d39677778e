/**
 * Import and refresh from an id alone. For each kind: the id `pulumi import` takes (the README's
 * table is this one; declared in each kind's definition), and the inputs that declare an object, taken from the state `Read` returns,
 * so that the engine's import check (its Diff of the declared inputs against that state) is empty.
 * Values the platform never gives back are not among them: the user declares them after the import.
 */
import { KIND_DEFINITIONS } from "../../kinds/definitions";
import type { ImportIdDefinition } from "../../kinds/kind-definition";
import type { Props } from "./secrets";

export type ImportId = ImportIdDefinition;

/** Every importable kind's import id, as its definition (`src/kinds/<kind>/definition.ts`) declares it. */
export const IMPORT_IDS: Record<string, ImportId> = Object.fromEntries(
  KIND_DEFINITIONS.flatMap((d) => (typeof d.importId === "string" ? [] : [[d.kind, d.importId]])),
);

/** Why a kind has no import id (SessionToken), as its definition says. */
export const NOT_IMPORTABLE: Record<string, string> = Object.fromEntries(
  KIND_DEFINITIONS.flatMap((d) => (typeof d.importId === "string" ? [[d.kind, d.importId]] : [])),
);

/** The inputs that declare the object `state` describes (fields absent from the state stay absent). */
export function importInputs(kind: string, state: Props): Props {
  const fields = IMPORT_IDS[kind]?.inputs ?? [];
  return Object.fromEntries(
    fields.filter((f) => state[f] !== undefined && state[f] !== null).map((f) => [f, state[f]]),
  );
}
