/**
 * Which drifted fields `svc-iac import --keep` can write back into the files that declare them,
 * and where: a UDF's code into its `.py` file, and a few top-level scalar keys of a YAML file,
 * edited in place. Anything else (metadata, helper modules, schedules, arguments, shares, secret
 * values) is not offered: writing it back would rewrite configuration that did not drift.
 */
import type { FieldChange } from "../../resources/kind";
import type { DesiredKind } from "../model";

/** Where a field lives: the UDF's `.py` file, or a top-level key of the object's YAML file. */
export type KeepPlace =
  | { in: "code" }
  | {
      in: "yaml";
      key: string;
      /** The value the loader takes when the key is absent: keeping it removes the key (or leaves it absent). */
      default?: unknown;
    };

const PLACES: Partial<Record<DesiredKind, Readonly<Record<string, KeepPlace>>>> = {
  Udf: {
    code: { in: "code" },
    entrypoint: { in: "yaml", key: "entrypoint", default: "udf" },
    isVisible: { in: "yaml", key: "visible" },
    position: { in: "yaml", key: "position" },
  },
  Canvas: {
    accessScope: { in: "yaml", key: "access_scope", default: "team" },
    allowPublicRead: { in: "yaml", key: "allow_public_read", default: false },
    dashboardBody: { in: "yaml", key: "dashboard_body" },
    previewImageUrl: { in: "yaml", key: "preview_image_url" },
  },
  Cronjob: {
    enabled: { in: "yaml", key: "enabled", default: true },
    description: { in: "yaml", key: "description" },
  },
};

/** Where `field` of a `kind` object is written back, or undefined when keep cannot write it. */
export function keepPlace(kind: DesiredKind, field: string): KeepPlace | undefined {
  return PLACES[kind]?.[field];
}

/** Why `import --keep` cannot keep these changes of a `kind` object declared in `file`; undefined when it can. */
export function keepUnavailable(kind: DesiredKind, fields: readonly FieldChange[], file: string | undefined): string | undefined {
  const secret = fields.filter((f) => f.secret).map((f) => f.field);
  if (kind === "Secret" || secret.length) return `${kind === "Secret" ? "a secret's value" : `its ${secret.join(", ")}`} never leaves the platform`;
  // A UDF is declared by its .py file; every field but its code is in the <slug>.yaml beside it.
  const where = kind === "Udf" && file ? file.replace(/\.py$/, ".yaml") : file;
  const by = `edit ${where ?? "its file"} by hand to keep the platform's version`;
  if (!PLACES[kind]) return `svc-iac import --keep does not write a ${kind}'s fields back; ${by}`;
  const other = fields.filter((f) => !keepPlace(kind, f.field)).map((f) => f.field);
  if (other.length) return `svc-iac import --keep does not write ${other.join(", ")} back (it would rewrite configuration that did not drift); ${by}`;
  return undefined;
}
