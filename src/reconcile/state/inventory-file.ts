/**
 * The inventory as a file (`inventory.json`): its schema, and the one way to read and write it.
 * Written deterministically (sorted keys, 2-space indent, trailing newline) so a state kept in git
 * or a bucket diffs cleanly; read strictly, so a corrupt or foreign file stops the run with a
 * message naming the file instead of letting prune act on a wrong inventory.
 */
import { z } from "zod";
import { stableJsonText } from "./json-file";
import { DESIRED_KINDS, type DesiredKind } from "../../model/kind-list";
import { StateFileError } from "./lock-errors";
import { INVENTORY_VERSION, type Inventory } from "../../model/inventory";

const Iso = z.string().min(1);

// Loose objects: a field added to the types within the same version survives a read and a write.
export const InventoryEntrySchema = z
  .looseObject({
    kind: z.enum(DESIRED_KINDS as [DesiredKind, ...DesiredKind[]]),
    id: z.string(),
    key: z.string(),
    createdAt: Iso,
    appliedAt: Iso,
    rotatedAt: Iso.optional(),
    kept: z.record(z.string(), z.unknown()).optional(),
    intent: z.looseObject({ key: z.string(), at: Iso, keys: z.array(z.string()).optional() }).optional(),
    undelivered: Iso.optional(),
  })
  .refine(
    (e) => e.id.length > 0 || e.intent !== undefined || (Array.isArray(e.kept?.retire) && e.kept.retire.length > 0),
    {
      path: ["id"],
      message:
        "An entry needs an id (only an entry recording a create in progress, with `intent`, or listing replaced objects still to delete, `kept.retire`, may have none)",
    },
  );

/** The schema of `inventory.json` (version {@link INVENTORY_VERSION}). */
export const InventorySchema = z.looseObject({
  version: z.literal(INVENTORY_VERSION),
  project: z.string().min(1),
  target: z.string().min(1),
  updatedAt: Iso,
  objects: z.record(z.string(), InventoryEntrySchema),
  forgotten: z
    .record(z.string(), z.looseObject({ kind: InventoryEntrySchema.shape.kind, id: z.string().min(1), at: Iso }))
    .optional(),
});

// Fails to compile when types.ts gains a field this schema does not check.
type Parsed = z.infer<typeof InventorySchema>;
const _schemaCoversTypes: (p: Parsed) => Inventory = (p) => p;
void _schemaCoversTypes;

/** A path inside the document as people write it: `objects["canvas.sales"].kind`. */
function formatPath(p: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of p) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (typeof seg === "string" && /^[A-Za-z_$][\w$]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out || "(the document)";
}

export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join("; ");
}

/**
 * Reads an inventory from its text. `file` names where it came from, for messages.
 * @throws StateFileError when the text is not JSON, has another version, or does not match the schema.
 */
export function parseInventory(text: string, file: string): Inventory {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new StateFileError(
      file,
      `Inventory file ${file} is not valid JSON (${(e as Error).message}). Restore it from a backup or version history; svc-iac will not guess what it managed.`,
    );
  }
  const version = data && typeof data === "object" ? (data as { version?: unknown }).version : undefined;
  if (version !== INVENTORY_VERSION) {
    const found = version === undefined ? "no version" : `version ${JSON.stringify(version)}`;
    const hint =
      typeof version === "number" && version > INVENTORY_VERSION
        ? " It was written by a newer svc-iac: upgrade svc-iac."
        : "";
    throw new StateFileError(
      file,
      `Inventory file ${file} has ${found}; this svc-iac reads version ${INVENTORY_VERSION}.${hint}`,
    );
  }
  if (plainlyValid(data)) return withSharedKindNames(data);
  const parsed = InventorySchema.safeParse(data);
  if (!parsed.success) {
    throw new StateFileError(file, `Inventory file ${file} is not a valid inventory: ${describeIssues(parsed.error)}.`);
  }
  return parsed.data;
}

const isText = (v: unknown): v is string => typeof v === "string";
const isTime = (v: unknown) => isText(v) && v.length > 0;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const KIND_SET = new Set<string>(DESIRED_KINDS);
const KIND_NAMES = new Map<string, Inventory["objects"][string]["kind"]>(DESIRED_KINDS.map((k) => [k, k]));

/** Each entry's `kind` as the one string of that name: JSON.parse makes a string per entry (100,000 of them in a large inventory). */
function withSharedKindNames(inventory: Inventory): Inventory {
  for (const e of Object.values(inventory.objects)) e.kind = KIND_NAMES.get(e.kind) ?? e.kind;
  return inventory;
}

/**
 * The common case of {@link InventorySchema}, checked by hand: an inventory of 100,000 entries is
 * read in milliseconds instead of a second. Accepts only what the schema accepts; anything else
 * goes through the schema, which says what is wrong.
 */
function plainlyValid(data: unknown): data is Inventory {
  if (
    !isRecord(data) ||
    data.version !== INVENTORY_VERSION ||
    !isText(data.project) ||
    !data.project ||
    !isText(data.target) ||
    !data.target ||
    !isTime(data.updatedAt) ||
    !isRecord(data.objects)
  )
    return false;
  for (const e of Object.values(data.objects)) {
    if (
      !isRecord(e) ||
      !KIND_SET.has(e.kind as string) ||
      !isText(e.id) ||
      !isText(e.key) ||
      !isTime(e.createdAt) ||
      !isTime(e.appliedAt)
    )
      return false;
    if (e.rotatedAt !== undefined && !isTime(e.rotatedAt)) return false;
    if (e.kept !== undefined && !isRecord(e.kept)) return false;
    if (e.intent !== undefined) return false; // rare: the schema checks it
    if (!e.id) return false;
  }
  return true;
}

/**
 * The text of an inventory file: sorted keys at every level, 2-space indent, trailing newline.
 * @throws StateFileError when `inventory` does not match the schema (nothing invalid is ever written).
 */
export function serializeInventory(inventory: Inventory, file = "inventory.json"): string {
  const parsed = plainlyValid(inventory) ? { success: true as const } : InventorySchema.safeParse(inventory);
  if (!parsed.success) {
    throw new StateFileError(
      file,
      `Refusing to write an invalid inventory to ${file}: ${describeIssues(parsed.error)}.`,
    );
  }
  return stableJsonText(inventory);
}

/** A fresh inventory with no objects. */
export function emptyInventory(project: string, target: string, now: Date = new Date()): Inventory {
  return { version: INVENTORY_VERSION, project, target, updatedAt: now.toISOString(), objects: {} };
}

/**
 * Checks that an inventory belongs to this project and target, so a copied or misconfigured state
 * location never makes prune delete another project's objects.
 * @throws StateFileError naming both.
 */
export function checkInventoryOwner(
  inventory: Inventory,
  expected: { project: string; target: string },
  file: string,
): Inventory {
  if (inventory.project !== expected.project || inventory.target !== expected.target) {
    throw new StateFileError(
      file,
      `Inventory file ${file} belongs to project "${inventory.project}" target "${inventory.target}", not project "${expected.project}" target "${expected.target}". Check the state location in svc.yaml.`,
    );
  }
  return inventory;
}
