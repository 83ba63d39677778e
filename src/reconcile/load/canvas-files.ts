/**
 * `canvases/<name>/`: `canvas.yaml` (settings and sharing), one UDF per `<slug>.py` directly in
 * the folder with optional `<slug>.yaml` settings. `.py` files in sub-folders are helper modules.
 */
import type { RepositoryJail } from "../../repository/jail";
import { posix } from "node:path";
import type { DesiredObject, DriftPolicySetting, ReferencedInput, UdfTest } from "../../model/desired";
import { quotedPath, type Diagnostics } from "../../repository/diagnostics";
import { desiredObject, onDriftOf } from "./desired";
import { MapReader, referencedInputs, rootReader, type ReadContext } from "../../repository/fields";
import { CANVAS_KEYS, DURATION_EXPECTED, HEADER_KEYS, PATTERNS, SHARE_KEYS, UDF_KEYS } from "./keys";
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

export const CANVASES = "canvases";
const CANVAS_FILE = "canvas.yaml";
const URL = /^https?:\/\/\S+$/i;

/** Inputs (as plans name them) ← where each is written: canvas.yaml, its `share:`, a `<slug>.yaml` (from the kinds' definitions). */
const CANVAS_INPUT_KEYS = inputKeysOf(canvasDefinition);
const SHARE_INPUT_KEYS = inputKeysOf(canvasShareDefinition, canvasShareRepository, "share.");
const UDF_INPUT_KEYS = inputKeysOf(udfDefinition);
const DEFAULT_ACCESS_SCOPE = inputDefault<"team" | "public">(canvasDefinition, "accessScope");
const DEFAULT_ALLOW_PUBLIC_READ = inputDefault<boolean>(canvasDefinition, "allowPublicRead");
const DEFAULT_ENTRYPOINT = inputDefault<string>(udfDefinition, "entrypoint");

/** What the loader gathers besides the objects: the UDFs' `tests:` and the Python files to check. */
export interface CanvasExtras {
  tests: UdfTest[];
  /** Where each Python file goes as it is read (the Python check, or a list). */
  python: PythonSink;
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
  refuseCaseTwins(
    files.filter((f) => f.endsWith(".py")).map((f) => `${folder}/${f}`),
    "UDF files",
    "UDF slugs",
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
  for (const file of files.filter((f) => f.endsWith(".yaml") && f !== CANVAS_FILE)) {
    if (!files.includes(`${file.slice(0, -".yaml".length)}.py`)) {
      diag.atFile(
        `${folder}/${file}`,
        `found UDF settings without code: ${file.slice(0, -".yaml".length)}.py does not exist in ${folder}/ (a <slug>.yaml holds the settings of <slug>.py)`,
      );
    }
  }
  const names = new Set(files);
  for (const file of files.filter((f) => f.endsWith(".py"))) {
    const udf = await readUdf(jail, canvas, file.slice(0, -".py".length), names, vars, diag, extras.python);
    if (udf) {
      out.push(udf.object);
      extras.tests.push(...udf.tests);
    }
  }
  return out;
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

async function readUdf(
  jail: RepositoryJail,
  canvas: string,
  slug: string,
  files: ReadonlySet<string>,
  vars: Resolver,
  diag: Diagnostics,
  python: PythonSink,
): Promise<{ object: DesiredObject; tests: UdfTest[] } | undefined> {
  const folder = `${CANVASES}/${canvas}`;
  const pyFile = `${folder}/${slug}.py`;
  if (slug === "canvas") {
    diag.atFile(
      pyFile,
      `found a UDF named "canvas", expected another name: canvas.yaml holds the canvas's settings, so canvas.py cannot have settings of its own`,
    );
    return undefined;
  }
  if (!PATTERNS.slug.test(slug)) {
    diag.atFile(
      pyFile,
      `found UDF file "${slug}.py", expected a slug of letters, digits, "_" and "-" only ([A-Za-z0-9_-]+)`,
    );
    return undefined;
  }
  const code = await readText(jail, pyFile, diag);
  if (code === undefined) return undefined; // refused (reported), or gone since the listing
  let settings: UdfSettings = { headers: [], tests: [], referenced: [] };
  if (files.has(`${slug}.yaml`)) {
    const settingsFile = `${folder}/${slug}.yaml`;
    const text = await readText(jail, settingsFile, diag);
    const src = text === undefined ? undefined : parseYaml(settingsFile, text, diag);
    if (src) settings = await readUdfSettings(jail, { src, diag, vars }, folder, { canvas, slug }, python);
  }
  const entrypoint = settings.entrypoint ?? DEFAULT_ENTRYPOINT;
  python.push({
    file: pyFile,
    code,
    entrypoint,
    ...(settings.entrypointAt ? { entrypointSetAt: settings.entrypointAt } : {}),
  });
  const inputs = {
    slug,
    code,
    entrypoint,
    headers: settings.headers,
    metadata: settings.metadata ?? {},
    createSharedToken: settings.sharedToken ?? false,
  };
  const options = {
    isVisible: settings.visible,
    position: settings.position,
    protect: settings.protect,
    onDrift: settings.onDrift,
  };
  const object = desiredObject(
    "Udf",
    `udf.${canvas}/${slug}`,
    inputs,
    { file: pyFile, line: 1, column: 1, path: "" },
    { refs: { canvas }, options, referenced: settings.referenced },
  );
  return { object, tests: settings.tests };
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
  onDrift?: DriftPolicySetting;
  tests: UdfTest[];
  /** Its inputs written with a reference in `<slug>.yaml`. */
  referenced: ReferencedInput[];
}

async function readUdfSettings(
  jail: RepositoryJail,
  ctx: ReadContext,
  folder: string,
  udf: { canvas: string; slug: string },
  python: PythonSink,
): Promise<UdfSettings> {
  const top = rootReader(ctx, UDF_KEYS);
  if (!top.isMapping) return { headers: [], tests: [], referenced: [] };
  const entrypoint = top.string("entrypoint", {
    pattern: PATTERNS.module,
    expected: 'a Python function name, e.g. "udf"',
  });
  const at = locate(ctx.src, top.valueNode("entrypoint"), "entrypoint");
  const settings = {
    entrypoint,
    ...(entrypoint !== undefined ? { entrypointAt: `${at.file}:${at.line}` } : {}),
    metadata: top.object("metadata", 'a mapping of metadata, e.g. {"fused:description": "Loads listings"}'),
    headers: await readHeaders(jail, ctx, top, folder, python),
    visible: top.boolean("visible"),
    position: top.integer("position", 0),
    sharedToken: top.boolean("shared_token"),
    protect: top.boolean("protect"),
    onDrift: onDriftOf(top, ctx.src.file),
    tests: readUdfTests(ctx, top, udf),
  };
  return { ...settings, referenced: referencedInputs(ctx, UDF_INPUT_KEYS) };
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
    const code = file === undefined ? undefined : readHelper(jail, ctx, h, folder, file, python);
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
  python.push({ file: rel, code: read.text });
  return read.text;
}
