/**
 * Every kind, once: its name, its folder under `src/kinds/`, and whether a repository declares it
 * (the reconciler's kinds; a session token is only a Pulumi resource). The kinds' registry
 * (`src/kinds/registry.ts`) and the list of their definitions (`src/kinds/definitions.ts`) are
 * generated from it by `npm run generate:schemas` (`src/kinds/schema/kind-registry-files.ts`), by
 * convention: the folder `bucket-policy` exports `bucketPolicyDefinition` from `definition.ts`, and
 * `bucketPolicyKind` (and, when declared, `bucketPolicyTraits`) from `resource.ts`.
 * Adding a kind is its folder and one line here. Pure data.
 */
export const KIND_LIST = [
  { name: "Canvas", folder: "canvas", declared: true },
  { name: "Udf", folder: "udf", declared: true },
  { name: "CanvasShare", folder: "canvas-share", declared: true },
  { name: "Cronjob", folder: "cronjob", declared: true },
  { name: "Secret", folder: "secret", declared: true },
  { name: "ServiceAccount", folder: "service-account", declared: true },
  { name: "BucketPolicy", folder: "bucket-policy", declared: true },
  { name: "SessionToken", folder: "session-token", declared: false },
] as const;

/** A kind's name: `Canvas`, `Udf`, … */
export type KindName = (typeof KIND_LIST)[number]["name"];

/** The kinds a repository declares (all but the Pulumi-only ones). */
export type DesiredKind = Extract<(typeof KIND_LIST)[number], { declared: true }>["name"];

/** The names of the kinds a repository declares, in the list's order. */
export const DESIRED_KINDS: readonly DesiredKind[] = KIND_LIST.flatMap((k) => (k.declared ? [k.name] : []));
