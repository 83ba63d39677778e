/**
 * `canvases/<name>/`: `canvas.yaml` (settings and sharing), and directly in the folder one record
 * per slug: a UDF as `<slug>.py`, a sticky note as `<slug>.md` (Markdown), a widget as
 * `<slug>.json` (a JSON document), each with optional `<slug>.yaml` settings. `.py` files in
 * sub-folders are helper modules. Notes and widgets are UDF records on the platform, told apart by
 * their metadata (`src/kinds/udf/udf-variant.ts`): never checked as Python, a widget checked as JSON.
 */
import { DEPLOY_MODES } from "../../kinds/udf/switch-over";
import type { RepositoryJail } from "../../repository/jail";
import { posix } from "node:path";
import type { DesiredObject, DriftPolicySetting, ReferencedInput, UdfTest } from "../../model/desired";
import { quotedPath, type Diagnostics } from "../../repository/diagnostics";
import { desiredObject, onDriftOf } from "./desired";
import { MapReader, referencedInputs, rootReader, type ReadContext } from "../../repository/fields";
import {
  CANVAS_KEYS,
  CANVASLESS_UDF_KEYS,
  DURATION_EXPECTED,
  FURNITURE_KEYS,
  HEADER_KEYS,
  PATTERNS,
  SHARE_KEYS,
  UDF_KEYS,
} from "./keys";
import type { PythonSource } from "./python-check";
import { canvasDefinition } from "../../kinds/canvas/definition";
import { canvasShareDefinition, canvasShareRepository } from "../../kinds/canvas-share/definition";
import { inputDefault, inputKeysOf } from "../../kinds/definition-views";
import { udfDefinition } from "../../kinds/udf/definition";

/** Takes Python files as the loader reads them. */
export type PythonSink = { push(s: PythonSource): unknown };
import { refuseCaseTwins } from "./case-twins";
import { folderNotFile, listFolder, readText, reportRefused } from "../../repository/repo-files";
import { readUdfTests } from "./udf-tests";
import type { Resolver } from "../../repository/variables";
import { locate, parseYaml, readYaml } from "../../repository/yaml-source";
import { jsonProblem } from "../../repository/json-check";
import {
  impliedMetadata,
  VARIANT_EXTENSIONS,
  VARIANT_NOUN,
  VARIANT_PREFIXES,
  variantOf,
  type UdfVariant,
} from "../../kinds/udf/udf-variant";

export const CANVASES = "canvases";
const CANVAS_FILE = "canvas.yaml";
const URL = /^https?:\/\/\S+$/i;

/** Inputs (as plans name them) ← where each is written: canvas.yaml, its `share:`, a `<slug>.yaml` (from the kinds' definitions). */
const CANVAS_INPUT_KEYS = inputKeysOf(canvasDefinition);
const SHARE_INPUT_KEYS = inputKeysOf(canvasShareDefinition, canvasShareRepository, "share.");
const UDF_INPUT_KEYS = inputKeysOf(udfDefinition);
/** A note's or widget's `<slug>.yaml` fills only these inputs. */
const FURNITURE_INPUT_KEYS = Object.fromEntries(
  Object.entries(UDF_INPUT_KEYS).filter(([, key]) => (FURNITURE_KEYS as readonly string[]).includes(key)),
);
const DEFAULT_ACCESS_SCOPE = inputDefault<"team" | "public">(canvasDefinition, "accessScope");
const DEFAULT_ALLOW_PUBLIC_READ = inputDefault<boolean>(canvasDefinition, "allowPublicRead");
const DEFAULT_ENTRYPOINT = inputDefault<string>(udfDefinition, "entrypoint");

/** What the loader gathers besides the objects: the UDFs' `tests:` and the Python files to check. */
export interface CanvasExtras {
  tests: UdfTest[];
  /** Where each Python file goes as it is read (the Python check, or a list). */
  python: PythonSink;
  /** Whether svc.yaml's `checks.skip` names the address: its check is off. */
  skipCheck?: (address: string) => boolean;
  /** The addresses of records deployed without their check (`check: false`, `checks.skip`). */
  unchecked?: string[];
  /** The file declaring each UDF without a canvas, by slug (both layouts: a slug is declared once). */
  canvasless?: Map<string, string>;
}

/** `udfs/`: UDFs without a canvas, `<slug>.py` with optional `<slug>.yaml`; sub-folders hold helper modules (or, in the platform's layout, `<slug>/meta.json`). */
export const CANVASLESS = "udfs";

/**
 * Whether `slug` is free among the UDFs without a canvas; else the second file is refused, naming
 * the first (a slug is unique among its owner's UDFs without a canvas).
 */
export function claimCanvaslessSlug(
  extras: CanvasExtras,
  slug: string,
  file: string,
  report: (message: string) => void,
): boolean {
  const claims = (extras.canvasless ??= new Map());
  const first = claims.get(slug);
  if (first !== undefined) {
    report(
      `found a second UDF without a canvas with slug "${slug}", expected one per slug: ${first} declares it already (a slug is unique among the UDFs without a canvas)`,
    );
    return false;
  }
  claims.set(slug, file);
  return true;
}

/** Every UDF without a canvas in `udfs/` (svc-iac's layout); their tests and Python sources go to `extras`. */
export async function readCanvaslessUdfs(
  jail: RepositoryJail,
  vars: Resolver,
  diag: Diagnostics,
  extras: CanvasExtras,
): Promise<DesiredObject[]> {
  const listing = jail.listFolder(CANVASLESS);
  if (listing.kind === "refused") {
    diag.atFile(CANVASLESS, listing.message);
    return [];
  }
  const files = listing.entries.filter((e) => !e.isFolder).map((e) => e.name);
  refuseCaseTwins(
    files.filter((f) => f.endsWith(".py")).map((f) => `${CANVASLESS}/${f}`),
    "UDF files",
    "UDF slugs",
    diag,
  );
  for (const f of files) {
    if (/\.(md|json)$/.test(f))
      diag.atFile(
        `${CANVASLESS}/${f}`,
        `found ${quotedPath(f)} in ${CANVASLESS}/, expected only UDFs (<slug>.py) there: notes and widgets live on a canvas (canvases/<canvas>/${f})`,
      );
    if (f.endsWith(".yaml") && !files.includes(`${f.slice(0, -".yaml".length)}.py`))
      diag.atFile(
        `${CANVASLESS}/${f}`,
        `found UDF settings without code: ${f.slice(0, -".yaml".length)}.py does not exist in ${CANVASLESS}/ (a <slug>.yaml holds the settings of the UDF beside it)`,
      );
  }
  const names = new Set(files);
  const out: DesiredObject[] = [];
  for (const f of files.filter((name) => name.endsWith(".py")).sort()) {
    const slug = f.slice(0, -".py".length);
    if (!claimCanvaslessSlug(extras, slug, `${CANVASLESS}/${f}`, (m) => diag.atFile(`${CANVASLESS}/${f}`, m))) continue;
    const udf = await readUdf(jail, { folder: CANVASLESS }, slug, "udf", names, vars, diag, extras);
    if (udf) {
      out.push(udf.object);
      extras.tests.push(...udf.tests);
    }
  }
  return out;
}

/** Every canvas, share and UDF of the repository; the UDFs' tests and Python sources go to `extras`. */
export async function readCanvases(
  jail: RepositoryJail,
  vars: Resolver,
  diag: Diagnostics,
  extras: CanvasExtras = { tests: [], python: [] },
): Promise<DesiredObject[]> {
  const out: DesiredObject[] = [];
  const entries = await listFolder(jail, CANVASES, diag);
  refuseCaseTwins(
    entries.filter((e) => e.isFolder).map((e) => `${CANVASES}/${e.name}`),
    "canvas folders",
    "canvas names",
    diag,
  );
  for (const entry of entries) {
    const rel = `${CANVASES}/${entry.name}`;
    if (!entry.isFolder) {
      if (/\.(py|ya?ml)$/.test(entry.name))
        diag.atFile(
          rel,
          `found a file directly in canvases/, expected one folder per canvas: move it to canvases/<canvas name>/${entry.name}`,
        );
      continue;
    }
    if (!PATTERNS.canvas.test(entry.name)) {
      diag.atFile(
        rel,
        `found canvas folder "${entry.name}", expected a canvas name of letters, digits and "_" only ([A-Za-z0-9_]+), e.g. "${entry.name.replace(/[^A-Za-z0-9_]/g, "_")}"`,
      );
    }
    out.push(...(await readCanvasFolder(jail, entry.name, vars, diag, extras)));
  }
  return out;
}

async function readCanvasFolder(
  jail: RepositoryJail,
  canvas: string,
  vars: Resolver,
  diag: Diagnostics,
  extras: CanvasExtras,
): Promise<DesiredObject[]> {
  const folder = `${CANVASES}/${canvas}`;
  const listing = jail.listFolder(folder);
  if (listing.kind === "refused") {
    diag.atFile(folder, listing.message);
    return [];
  }
  // A folder named like a file the loader reads would otherwise be skipped as a folder of helpers, or reported as missing.
  for (const e of listing.entries)
    if (e.isFolder && /\.(py|ya?ml)$/.test(e.name))
      diag.atFile(`${folder}/${e.name}`, folderNotFile(`${folder}/${e.name}`));
  const files = listing.entries.filter((e) => !e.isFolder).map((e) => e.name);
  for (const v of VARIANT_PREFIXES)
    refuseCaseTwins(
      files.filter((f) => codeFileVariant(f) === v).map((f) => `${folder}/${f}`),
      `${VARIANT_NOUN[v]} files`,
      `${VARIANT_NOUN[v]} slugs`,
      diag,
    );
  const out: DesiredObject[] = [];
  if (listing.entries.some((e) => e.isFolder && e.name === CANVAS_FILE)) {
    // reported above
  } else if (!files.includes(CANVAS_FILE)) {
    diag.atFile(
      `${folder}/${CANVAS_FILE}`,
      `not found: every canvas folder needs a canvas.yaml (an empty file takes the defaults)`,
    );
  } else {
    const src = await readYaml(jail, `${folder}/${CANVAS_FILE}`, diag);
    if (src) out.push(...readCanvasFile({ src, diag, vars }, canvas));
  }
  // One record per slug: its code in <slug>.py (a UDF), <slug>.md (a note) or <slug>.json (a widget).
  const records = new Map<string, { file: string; variant: UdfVariant }>();
  for (const file of files) {
    const variant = codeFileVariant(file);
    if (!variant) continue;
    const slug = file.slice(0, -VARIANT_EXTENSIONS[variant].length);
    const first = records.get(slug);
    if (first) {
      diag.atFile(
        `${folder}/${file}`,
        `found a second record with slug "${slug}", expected one file per slug: ${folder}/${first.file} holds it already (a slug is unique on its canvas, whether a UDF, a note or a widget)`,
      );
      continue;
    }
    records.set(slug, { file, variant });
  }
  for (const file of files.filter((f) => f.endsWith(".yaml") && f !== CANVAS_FILE)) {
    const slug = file.slice(0, -".yaml".length);
    if (!records.has(slug)) {
      diag.atFile(
        `${folder}/${file}`,
        `found record settings without code: none of ${slug}.py (a UDF), ${slug}.md (a note) or ${slug}.json (a widget) exists in ${folder}/ (a <slug>.yaml holds the settings of the record beside it)`,
      );
    }
  }
  const names = new Set(files);
  for (const [slug, { variant }] of records) {
    const udf = await readUdf(jail, { canvas, folder }, slug, variant, names, vars, diag, extras);
    if (udf) {
      out.push(udf.object);
      extras.tests.push(...udf.tests);
    }
  }
  return out;
}

/** The variant whose code a file of the canvas folder holds, by its extension; undefined for other files. */
function codeFileVariant(file: string): UdfVariant | undefined {
  for (const v of VARIANT_PREFIXES) if (file.endsWith(VARIANT_EXTENSIONS[v]) && file !== CANVAS_FILE) return v;
  return undefined;
}

function readCanvasFile(ctx: ReadContext, canvas: string): DesiredObject[] {
  const top = rootReader(ctx, CANVAS_KEYS);
  if (!top.isMapping) return [];
  const preview = top.string("preview_image_url", {
    pattern: URL,
    expected: 'an http(s) URL, e.g. "https://example.com/preview.png"',
  });
  const inputs = {
    name: canvas,
    accessScope: top.oneOf("access_scope", ["team", "public"] as const) ?? DEFAULT_ACCESS_SCOPE,
    allowPublicRead: top.boolean("allow_public_read") ?? DEFAULT_ALLOW_PUBLIC_READ,
    passcode: top.secret("passcode", "passcode", { allowEmpty: false }),
    dashboardBody: top.string("dashboard_body"),
    previewImageUrl: preview,
  };
  const referenced = referencedInputs(ctx, CANVAS_INPUT_KEYS);
  const out = [
    desiredObject("Canvas", `canvas.${canvas}`, inputs, locate(ctx.src, null, ""), {
      options: { protect: top.boolean("protect"), onDrift: onDriftOf(top, ctx.src.file) },
      referenced,
    }),
  ];
  if (top.has("share")) {
    const share = top.map("share", SHARE_KEYS);
    if (share) {
      const shareInputs = {
        clientId: share.string("client_id", {
          pattern: /^\S+$/,
          expected: "the client_id of one of your team's real-time instances (omit it for the preferred one)",
        }),
        rotation: share.text(
          "rotation",
          'a trigger value (string or number), e.g. "1": changing it rotates the share token',
        ),
      };
      const rotateEvery = share.string("rotate_every", { pattern: PATTERNS.duration, expected: DURATION_EXPECTED });
      const source = locate(ctx.src, top.keyNode("share"), "share");
      const options = { rotateEvery, protect: share.boolean("protect") };
      out.push(
        desiredObject("CanvasShare", `share.${canvas}`, shareInputs, source, {
          refs: { canvas },
          options,
          referenced: referencedInputs(ctx, SHARE_INPUT_KEYS),
        }),
      );
    }
  }
  return out;
}

/** Where a record's files are: a canvas's folder, or (without `canvas`) the folder of UDFs without a canvas. */
interface RecordPlace {
  canvas?: string;
  folder: string;
}

async function readUdf(
  jail: RepositoryJail,
  place: RecordPlace,
  slug: string,
  variant: UdfVariant,
  files: ReadonlySet<string>,
  vars: Resolver,
  diag: Diagnostics,
  extras: CanvasExtras,
): Promise<{ object: DesiredObject; tests: UdfTest[] } | undefined> {
  const { canvas, folder } = place;
  const address = canvas === undefined ? `${variant}.${slug}` : `${variant}.${canvas}/${slug}`;
  // Helper modules are held until the record's `check:` is known.
  const helpers: PythonSource[] = [];
  const ext = VARIANT_EXTENSIONS[variant];
  const noun = VARIANT_NOUN[variant];
  const codeFile = `${folder}/${slug}${ext}`;
  if (slug === "canvas" && canvas !== undefined) {
    diag.atFile(
      codeFile,
      `found a ${noun} named "canvas", expected another name: canvas.yaml holds the canvas's settings, so canvas${ext} cannot have settings of its own`,
    );
    return undefined;
  }
  if (!PATTERNS.slug.test(slug)) {
    diag.atFile(
      codeFile,
      `found ${noun} file "${slug}${ext}", expected a slug of letters, digits, "_" and "-" only ([A-Za-z0-9_-]+)`,
    );
    return undefined;
  }
  const code = await readText(jail, codeFile, diag);
  if (code === undefined) return undefined; // refused (reported), or gone since the listing
  let settings: UdfSettings = { headers: [], tests: [], referenced: [] };
  if (files.has(`${slug}.yaml`)) {
    const settingsFile = `${folder}/${slug}.yaml`;
    const text = await readText(jail, settingsFile, diag);
    const src = text === undefined ? undefined : parseYaml(settingsFile, text, diag);
    if (src)
      settings =
        variant === "udf"
          ? await readUdfSettings(jail, { src, diag, vars }, folder, { canvas, slug }, helpers)
          : readFurnitureSettings({ src, diag, vars }, variant);
  }
  const entrypoint = settings.entrypoint ?? DEFAULT_ENTRYPOINT;
  const unchecked = variant !== "note" && (settings.check === false || (extras.skipCheck?.(address) ?? false));
  if (unchecked) extras.unchecked?.push(address);
  if (variant === "udf" && !unchecked) {
    // A helper the UDF's code (and its other helpers) never names cannot break it: a parse error there is a warning.
    for (const h of helpers) {
      const others = [code, ...helpers.filter((o) => o !== h).map((o) => o.code)];
      const module = h.module ?? "";
      const named = new RegExp(`\\b${module}\\b`);
      extras.python.push({ ...h, ...(others.some((t) => named.test(t)) ? {} : { unusedHelper: true }) });
    }
    extras.python.push({
      file: codeFile,
      code,
      entrypoint,
      ...(settings.entrypointAt ? { entrypointSetAt: settings.entrypointAt } : {}),
    });
  }
  if (variant === "widget" && !unchecked) widgetCodeProblem(diag, codeFile, jsonProblem(code));
  const inputs = {
    slug,
    code,
    entrypoint,
    headers: settings.headers,
    metadata: { ...(settings.metadata ?? {}), ...impliedMetadata(variant) },
    createSharedToken: settings.sharedToken ?? false,
  };
  const options = {
    isVisible: settings.visible,
    position: settings.position,
    protect: settings.protect,
    onDrift: settings.onDrift,
    ...(settings.deploy === "tested" ? { deploy: "tested" as const } : {}),
  };
  const object = desiredObject(
    "Udf",
    address,
    inputs,
    { file: codeFile, line: 1, column: 1, path: "" },
    { refs: canvas === undefined ? {} : { canvas }, options, referenced: settings.referenced },
  );
  return { object, tests: settings.tests };
}

/**
 * A note's or widget's `<slug>.yaml`: its metadata (the keys its extension implies may be left
 * out, and may not say otherwise), visibility, position and protection.
 */
function readFurnitureSettings(ctx: ReadContext, variant: Exclude<UdfVariant, "udf">): UdfSettings {
  const top = rootReader(ctx, FURNITURE_KEYS);
  if (!top.isMapping) return { headers: [], tests: [], referenced: [] };
  const metadata = top.object("metadata", 'a mapping of metadata, e.g. {nodeTemplateColor: "#ffd966"}');
  if (metadata) {
    for (const [key, value] of Object.entries(impliedMetadata(variant)))
      if (key in metadata && metadata[key] !== value)
        top.fail(
          "metadata",
          `found ${key}: ${JSON.stringify(metadata[key])}, expected ${JSON.stringify(value)} or nothing: the file's extension (${VARIANT_EXTENSIONS[variant]}) makes it a ${VARIANT_NOUN[variant]}`,
        );
  }
  return {
    metadata,
    headers: [],
    visible: top.boolean("visible"),
    position: top.integer("position", 0),
    protect: top.boolean("protect"),
    check: top.boolean("check"),
    tests: [],
    referenced: referencedInputs(ctx, FURNITURE_INPUT_KEYS),
  };
}

interface UdfSettings {
  entrypoint?: string;
  /** `file:line` of `entrypoint:`, when set. */
  entrypointAt?: string;
  metadata?: Record<string, unknown>;
  headers: { moduleName: string; code: string }[];
  visible?: boolean;
  position?: number;
  sharedToken?: boolean;
  protect?: boolean;
  /** `check: false`: deployed without its check. */
  check?: boolean;
  onDrift?: DriftPolicySetting;
  /** `deploy:`: `tested` switches over through a candidate (needs tests). */
  deploy?: "direct" | "tested";
  tests: UdfTest[];
  /** Its inputs written with a reference in `<slug>.yaml`. */
  referenced: ReferencedInput[];
}

async function readUdfSettings(
  jail: RepositoryJail,
  ctx: ReadContext,
  folder: string,
  udf: { canvas?: string; slug: string },
  python: PythonSink,
): Promise<UdfSettings> {
  const top = rootReader(ctx, udf.canvas === undefined ? CANVASLESS_UDF_KEYS : UDF_KEYS);
  if (!top.isMapping) return { headers: [], tests: [], referenced: [] };
  const entrypoint = top.string("entrypoint", {
    pattern: PATTERNS.module,
    expected: 'a Python function name, e.g. "udf"',
  });
  const at = locate(ctx.src, top.valueNode("entrypoint"), "entrypoint");
  const settings = {
    entrypoint,
    ...(entrypoint !== undefined ? { entrypointAt: `${at.file}:${at.line}` } : {}),
    metadata: udfMetadata(top),
    headers: await readHeaders(jail, ctx, top, folder, python),
    visible: top.boolean("visible"),
    position: top.integer("position", 0),
    sharedToken: top.boolean("shared_token"),
    protect: top.boolean("protect"),
    check: top.boolean("check"),
    onDrift: onDriftOf(top, ctx.src.file),
    deploy: top.oneOf("deploy", DEPLOY_MODES),
    tests: readUdfTests(ctx, top, udf),
  };
  if (settings.deploy === "tested" && !settings.tests.length)
    top.fail(
      "deploy",
      "found deploy: tested and no tests:, expected tests: for this UDF as well: a tested switch-over runs the UDF's tests on a candidate before the live UDF changes",
    );
  return { ...settings, referenced: referencedInputs(ctx, UDF_INPUT_KEYS) };
}

/** A UDF's metadata; metadata that would make the record a note or a widget is refused (its file would be .md or .json). */
function udfMetadata(top: MapReader): Record<string, unknown> | undefined {
  const metadata = top.object("metadata", 'a mapping of metadata, e.g. {"fused:description": "Loads listings"}');
  const variant = variantOf(metadata);
  if (variant !== "udf")
    top.fail(
      "metadata",
      `found isNodeTemplate: true with nodeTemplateType: ${JSON.stringify(metadata!.nodeTemplateType)}, which makes the record a ${VARIANT_NOUN[variant]}, expected the metadata of a UDF: a ${VARIANT_NOUN[variant]} is written as <slug>${VARIANT_EXTENSIONS[variant]}`,
    );
  return metadata;
}

async function readHeaders(
  jail: RepositoryJail,
  ctx: ReadContext,
  top: MapReader,
  folder: string,
  python: PythonSink,
): Promise<UdfSettings["headers"]> {
  const items = top.list("headers", "a list of helper modules: [{module: utils, file: lib/utils.py}]") ?? [];
  const out: UdfSettings["headers"] = [];
  const seen = new Map<string, number>();
  for (const item of items) {
    const h = new MapReader(ctx, item.node, item.path, HEADER_KEYS);
    if (!h.isMapping) continue;
    const moduleName = h.string("module", {
      required: true,
      pattern: PATTERNS.module,
      expected: 'a Python module name: a letter or "_", then letters, digits or "_", e.g. "utils"',
    });
    const file = h.string("file", {
      required: true,
      expected: 'the path of a .py file relative to the canvas folder, e.g. "lib/utils.py"',
    });
    if (moduleName !== undefined) {
      const first = seen.get(moduleName);
      if (first !== undefined)
        h.fail(
          "module",
          `duplicate module "${moduleName}" (first at line ${first}); module names must be unique within headers`,
        );
      seen.set(moduleName, locate(ctx.src, h.valueNode("module"), "").line);
    }
    const code = file === undefined ? undefined : readHelper(jail, ctx, h, folder, file, moduleName, python);
    if (moduleName !== undefined && code !== undefined) out.push({ moduleName, code });
  }
  return out;
}

/**
 * A helper module listed in `headers:`: a `.py` file anywhere in the repository (the path is
 * relative to the canvas folder and may leave the project folder, e.g. `../../shared/geo.py`),
 * read through the jail. A refusal is reported at the `file:` line, naming the path.
 */
function readHelper(
  jail: RepositoryJail,
  ctx: ReadContext,
  h: MapReader,
  folder: string,
  file: string,
  moduleName: string | undefined,
  python: PythonSink,
): string | undefined {
  const rel = posix.normalize(posix.join(folder, file.replace(/\\/g, "/")));
  if (posix.isAbsolute(file) || /^[A-Za-z]:/.test(file)) {
    return h.fail(
      "file",
      `found ${quotedPath(file)}, expected a relative path (relative to ${folder}/) to a file inside the repository`,
    );
  }
  if (!rel.endsWith(".py")) return h.fail("file", `found ${quotedPath(file)}, expected a Python file ending in .py`);
  const read = jail.readText(rel);
  if (read.kind === "missing")
    return h.fail("file", `found ${quotedPath(file)}, expected an existing file: ${rel} does not exist`);
  if (read.kind === "refused") {
    // A bad byte is shown where it is, in the helper; any other refusal where the helper is named.
    if (read.line !== undefined) return void reportRefused(rel, read, ctx.diag);
    return h.fail("file", `found ${quotedPath(file)}: ${read.message}`);
  }
  python.push({ file: rel, code: read.text, ...(moduleName !== undefined ? { module: moduleName } : {}) });
  return read.text;
}

/** A widget's code that is not JSON: an error at its line and column in the file holding it. */
export function widgetCodeProblem(diag: Diagnostics, codeFile: string, problem: ReturnType<typeof jsonProblem>): void {
  if (!problem) return;
  diag.add({
    file: codeFile,
    line: problem.line,
    column: problem.column,
    path: "",
    message: `${problem.message} (a widget's code is a JSON document)`,
  });
}
