/**
 * The platform's own git layout, read as it is: any folder of the repository (outside `.git`,
 * `node_modules`, `.svc-iac` and svc-iac's own `canvases/`) holding a `collection.json` is a
 * canvas; its sub-folders holding a `meta.json` are its records (a UDF, a note or a widget, told
 * apart by their metadata: `src/kinds/udf/udf-variant.ts`). A record's code is the file its
 * `source` names (next to `meta.json`) or its inline `code`; its helper modules are its `headers`;
 * its slug is its `name`. They give the same desired objects as svc-iac's own layout
 * (`canvas.<name>`, `udf.`/`note.`/`widget.<canvas>/<slug>`), metadata and code as the files hold them.
 * A folder holding a `meta.json` outside any canvas is a UDF without a canvas (`udf.<slug>`).
 */
import { posix } from "node:path";
import type { DesiredObject, SourceLocation } from "../../model/desired";
import type { Diagnostics } from "../../repository/diagnostics";
import { describeFound, quotedPath } from "../../repository/diagnostics";
import type { RepositoryJail } from "../../repository/jail";
import { jsonProblem, positionOf } from "../../repository/json-check";
import { listFolder, readText, reportRefused } from "../../repository/repo-files";
import { inputDefault } from "../../kinds/definition-views";
import { canvasDefinition } from "../../kinds/canvas/definition";
import { udfDefinition } from "../../kinds/udf/definition";
import { VARIANT_NOUN, variantOf } from "../../kinds/udf/udf-variant";
import { type CanvasExtras, claimCanvaslessSlug, widgetCodeProblem } from "./canvas-files";
import { desiredObject } from "./desired";
import type { PythonSource } from "./python-check";

export const COLLECTION_FILE = "collection.json";
export const META_FILE = "meta.json";
/** Folders never searched for the platform's layout (hidden ones, `.git` and `.svc-iac` included, are never listed). */
const SKIPPED_FOLDERS = new Set(["node_modules", "canvases"]);
/** How deep the search for `collection.json` goes below the project folder. */
export const PLATFORM_LAYOUT_MAX_DEPTH = 16;

const DEFAULT_ACCESS_SCOPE = inputDefault<"team" | "public">(canvasDefinition, "accessScope");
const DEFAULT_ALLOW_PUBLIC_READ = inputDefault<boolean>(canvasDefinition, "allowPublicRead");
const DEFAULT_ENTRYPOINT = inputDefault<string>(udfDefinition, "entrypoint");

/** One JSON file of the layout: its values, and where each is (by path, `/job_config/steps/0/udf/name`). */
class JsonFile {
  constructor(
    readonly file: string,
    readonly text: string,
    readonly value: unknown,
    private readonly offsets: Map<string, number>,
    private readonly diag: Diagnostics,
  ) {}

  get diagnostics(): Diagnostics {
    return this.diag;
  }

  /** Where the value at `path` is, or its nearest parent that exists. */
  at(path: string): SourceLocation {
    for (let p = path; ; p = p.slice(0, p.lastIndexOf("/"))) {
      const offset = this.offsets.get(p);
      if (offset !== undefined) return { file: this.file, ...positionOf(this.text, offset), path };
      if (p === "") return { file: this.file, line: 1, column: 1, path };
    }
  }

  fail(path: string, message: string): undefined {
    this.diag.add({ ...this.at(path), message });
    return undefined;
  }

  get(path: string): unknown {
    let v: unknown = this.value;
    for (const part of path.split("/").slice(1)) {
      if (v === null || typeof v !== "object") return undefined;
      v = (v as Record<string, unknown>)[part];
    }
    return v;
  }

  /** A string at `path`; reported when missing (if `required`) or not a string. */
  string(path: string, expected: string, required = true): string | undefined {
    const v = this.get(path);
    if (v === undefined || v === null) {
      if (required) this.fail(path, `missing ${path.split("/").pop()}, expected ${expected}`);
      return undefined;
    }
    if (typeof v !== "string")
      return this.fail(path, `found ${describeFound(v)} at ${path.split("/").pop()}, expected ${expected}`);
    return v;
  }
}

/** A JSON file read through the jail and checked; undefined when missing (reported if `required`) or wrong. */
async function readJson(jail: RepositoryJail, file: string, diag: Diagnostics): Promise<JsonFile | undefined> {
  const text = await readText(jail, file, diag);
  if (text === undefined) return undefined;
  const offsets = new Map<string, number>();
  const problem = jsonProblem(text, offsets);
  if (problem) {
    diag.add({ file, line: problem.line, column: problem.column, path: "", message: problem.message });
    return undefined;
  }
  const json = new JsonFile(file, text, JSON.parse(text), offsets, diag);
  if (json.value === null || typeof json.value !== "object" || Array.isArray(json.value))
    return json.fail("", `found ${describeFound(json.value)}, expected a JSON object`);
  return json;
}

const join = (folder: string, name: string) => (folder === "." ? name : `${folder}/${name}`);

/** Every canvas and record of the repository written in the platform's layout. */
export async function readPlatformLayout(
  jail: RepositoryJail,
  diag: Diagnostics,
  extras: CanvasExtras,
): Promise<DesiredObject[]> {
  const out: DesiredObject[] = [];
  const canvases = new Map<string, string>();
  const walk = async (folder: string, depth: number): Promise<void> => {
    // A folder the jail refuses (a link leaving the repository) is not searched: it holds nothing of the repository.
    const listing = jail.listFolder(folder);
    if (listing.kind === "refused") return;
    const entries = listing.entries;
    const files = new Set(entries.filter((e) => !e.isFolder).map((e) => e.name));
    if (files.has(COLLECTION_FILE)) {
      out.push(...(await readCanvas(jail, folder, entries, canvases, diag, extras)));
      return;
    }
    if (files.has(META_FILE)) {
      // Outside any canvas: a UDF without a canvas.
      const record = await readRecord(jail, folder, undefined, new Map(), diag, extras);
      if (record) out.push(record);
      return;
    }
    for (const e of entries) {
      if (!e.isFolder || (depth === 0 && SKIPPED_FOLDERS.has(e.name)) || e.name === "node_modules") continue;
      if (depth + 1 > PLATFORM_LAYOUT_MAX_DEPTH) {
        diag.atFile(
          join(folder, e.name),
          `found folders nested more than ${PLATFORM_LAYOUT_MAX_DEPTH} deep, expected canvases (collection.json) at most ${PLATFORM_LAYOUT_MAX_DEPTH} folders below the project folder`,
        );
        return;
      }
      await walk(join(folder, e.name), depth + 1);
    }
  };
  await walk(".", 0);
  return out;
}

async function readCanvas(
  jail: RepositoryJail,
  folder: string,
  entries: { name: string; isFolder: boolean }[],
  canvases: Map<string, string>,
  diag: Diagnostics,
  extras: CanvasExtras,
): Promise<DesiredObject[]> {
  const file = join(folder, COLLECTION_FILE);
  const json = await readJson(jail, file, diag);
  if (!json) return [];
  const name = json.string("/name", 'the canvas name, e.g. "Sales"');
  if (name === undefined) return [];
  const first = canvases.get(name);
  if (first) {
    json.fail(
      "/name",
      `found a second canvas named ${JSON.stringify(name)}, expected one collection.json per canvas name: ${first} declares it already`,
    );
    return [];
  }
  canvases.set(name, file);
  const out: DesiredObject[] = [];
  const inputs = {
    name,
    accessScope: DEFAULT_ACCESS_SCOPE,
    allowPublicRead: DEFAULT_ALLOW_PUBLIC_READ,
    dashboardBody: json.string("/dashboard_body", "the canvas layout as a string (serialized JSON)", false),
    previewImageUrl: json.string("/preview_image_url", "an http(s) URL", false),
  };
  out.push(desiredObject("Canvas", `canvas.${name}`, inputs, json.at("/name")));
  const slugs = new Map<string, string>();
  for (const e of entries) {
    if (!e.isFolder) continue;
    const recordFolder = join(folder, e.name);
    const listing = await listFolder(jail, recordFolder, diag);
    if (!listing.some((f) => !f.isFolder && f.name === META_FILE)) continue;
    const record = await readRecord(jail, recordFolder, name, slugs, diag, extras);
    if (record) out.push(record);
  }
  return out;
}

async function readRecord(
  jail: RepositoryJail,
  folder: string,
  canvas: string | undefined,
  slugs: Map<string, string>,
  diag: Diagnostics,
  extras: CanvasExtras,
): Promise<DesiredObject | undefined> {
  const metaFile = join(folder, META_FILE);
  const json = await readJson(jail, metaFile, diag);
  if (!json) return undefined;
  const steps = json.get("/job_config/steps");
  if (!Array.isArray(steps) || steps.length !== 1)
    return json.fail(
      "/job_config/steps",
      `found ${steps === undefined ? "no job_config.steps" : describeFound(steps)}, expected job_config.steps: a list of one step {"type": "udf", "udf": {...}}`,
    );
  const base = "/job_config/steps/0/udf";
  const udf = json.get(base);
  if (udf === null || typeof udf !== "object" || Array.isArray(udf))
    return json.fail(base, `found ${describeFound(udf)} at udf, expected the record as an object {"name": ..., ...}`);
  const slug = json.string(`${base}/name`, 'the record\'s slug, e.g. "load_data"');
  if (slug === undefined) return undefined;
  if (canvas === undefined) {
    if (!claimCanvaslessSlug(extras, slug, metaFile, (m) => json.fail(`${base}/name`, m))) return undefined;
  } else {
    const first = slugs.get(slug);
    if (first) {
      return json.fail(
        `${base}/name`,
        `found a second record named ${JSON.stringify(slug)} on canvas ${JSON.stringify(canvas)}, expected one record per slug: ${first} declares it already`,
      );
    }
    slugs.set(slug, metaFile);
  }
  const metadataValue = json.get(`${base}/metadata`);
  if (
    metadataValue !== undefined &&
    metadataValue !== null &&
    (typeof metadataValue !== "object" || Array.isArray(metadataValue))
  )
    return json.fail(`${base}/metadata`, `found ${describeFound(metadataValue)} at metadata, expected an object`);
  const metadata = (metadataValue ?? {}) as Record<string, unknown>;
  const variant = variantOf(metadata);
  if (canvas === undefined && variant !== "udf")
    return json.fail(
      `${base}/metadata`,
      `found a ${VARIANT_NOUN[variant]} (metadata isNodeTemplate: true, nodeTemplateType: ${JSON.stringify(metadata.nodeTemplateType)}) outside any canvas, expected it in a sub-folder of a canvas folder (one holding collection.json): only a UDF can be without a canvas`,
    );
  const address = canvas === undefined ? `udf.${slug}` : `${variant}.${canvas}/${slug}`;
  const entrypoint =
    json.string(`${base}/entrypoint`, 'a Python function name, e.g. "udf"', false) ?? DEFAULT_ENTRYPOINT;

  // The code: the file `source` names, or inline `code`.
  const source = json.string(
    `${base}/source`,
    'the name of the code file next to meta.json, e.g. "load_data.py"',
    false,
  );
  const inline = json.string(`${base}/code`, "the record's code as a string", false);
  let code: string | undefined;
  let codeFile = metaFile;
  if (source !== undefined) {
    const file = relativeFile(json, `${base}/source`, folder, source);
    if (file === undefined) return undefined;
    code = readNamedFile(jail, json, `${base}/source`, file, source);
    if (code === undefined) return undefined;
    codeFile = file;
    if (inline !== undefined && inline !== code)
      return json.fail(
        `${base}/code`,
        `found inline code that differs from ${file}, expected one code: the same text in both, or only one of source and code`,
      );
  } else if (inline !== undefined) code = inline;
  else
    return json.fail(
      base,
      `missing source and code, expected one of them: the name of the code file next to meta.json, or the code inline`,
    );

  // Helper modules (`headers`), read like the code.
  const headers: { moduleName: string; code: string }[] = [];
  const helpers: PythonSource[] = [];
  const listed = json.get(`${base}/headers`);
  if (listed !== undefined && listed !== null && !Array.isArray(listed))
    return json.fail(
      `${base}/headers`,
      `found ${describeFound(listed)} at headers, expected a list of {module_name, source_file}`,
    );
  for (const [i] of ((listed ?? []) as unknown[]).entries()) {
    const at = `${base}/headers/${i}`;
    const moduleName = json.string(`${at}/module_name`, 'a Python module name, e.g. "utils"');
    const sourceFile = json.string(`${at}/source_file`, 'the helper\'s file next to meta.json, e.g. "utils.py"');
    if (moduleName === undefined || sourceFile === undefined) continue;
    if (headers.some((h) => h.moduleName === moduleName)) {
      json.fail(
        `${at}/module_name`,
        `duplicate module ${JSON.stringify(moduleName)}, expected module names unique within headers`,
      );
      continue;
    }
    const file = relativeFile(json, `${at}/source_file`, folder, sourceFile);
    if (file === undefined) continue;
    const text = readNamedFile(jail, json, `${at}/source_file`, file, sourceFile);
    if (text === undefined) continue;
    headers.push({ moduleName, code: text });
    helpers.push({ file, code: text, module: moduleName });
  }

  const unchecked = variant !== "note" && (extras.skipCheck?.(address) ?? false);
  if (unchecked) extras.unchecked?.push(address);
  if (variant === "udf" && !unchecked) {
    for (const h of helpers) {
      const others = [code, ...helpers.filter((o) => o !== h).map((o) => o.code)];
      const named = new RegExp(`\\b${h.module ?? ""}\\b`);
      extras.python.push({ ...h, ...(others.some((t) => named.test(t)) ? {} : { unusedHelper: true }) });
    }
    extras.python.push({ file: codeFile, code, entrypoint });
  }
  if (variant === "widget" && !unchecked) {
    const problem = jsonProblem(code);
    if (problem) {
      if (codeFile === metaFile)
        json.fail(
          `${base}/code`,
          `${problem.message} at line ${problem.line}, column ${problem.column} of the code (a widget's code is a JSON document)`,
        );
      else widgetCodeProblem(diag, codeFile, problem);
    }
  }
  if (variant !== "udf" && headers.length)
    json.fail(
      `${base}/headers`,
      `found helper modules on a ${VARIANT_NOUN[variant]}, expected none: only a UDF has helper modules`,
    );
  const inputs = { slug, code, entrypoint, headers, metadata, createSharedToken: false };
  return desiredObject("Udf", address, inputs, json.at(`${base}/name`), {
    refs: canvas === undefined ? {} : { canvas },
  });
}

/** `name` (from `path` of the JSON file) as a repository path next to the file; undefined (reported) when absolute or outside the folder. */
function relativeFile(json: JsonFile, path: string, folder: string, name: string): string | undefined {
  const rel = posix.normalize(join(folder, name.replace(/\\/g, "/")));
  if (posix.isAbsolute(name) || /^[A-Za-z]:/.test(name) || name === "" || rel.startsWith("../") || rel === "..")
    return json.fail(path, `found ${quotedPath(name)}, expected the name of a file next to ${json.file}`);
  return rel;
}

/** The file a JSON file names at `path`, read through the jail; a missing one is reported at the name, a refused one at the file. */
function readNamedFile(
  jail: RepositoryJail,
  json: JsonFile,
  path: string,
  file: string,
  name: string,
): string | undefined {
  const read = jail.readText(file);
  if (read.kind === "text") return read.text;
  if (read.kind === "missing")
    return json.fail(
      path,
      read.folder
        ? `found ${quotedPath(name)}, expected a file: ${file} is a folder`
        : `found ${quotedPath(name)}, expected an existing file: ${file} does not exist`,
    );
  if (read.line !== undefined) reportRefused(file, read, json.diagnostics);
  else json.fail(path, `found ${quotedPath(name)}: ${read.message}`);
  return undefined;
}
