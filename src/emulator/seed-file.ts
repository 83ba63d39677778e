/**
 * Reading `--seed FILE`: a YAML or JSON file in the shape of {@link SeedSpec}. Every problem of the
 * file is reported at once, each at its `file:line:column` with the path inside the document, what
 * was found and what was expected, before the emulator touches its data dir or opens a port.
 */
import { SvcError } from "../errors";
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { Diagnostics } from "../repository/diagnostics";
import { parseYaml } from "../repository/yaml-source";
import { formatLoadError, type LoadError } from "../model/desired";
import { checkDocument, locatePath } from "./schema-errors";
import { SeedSpec } from "./seed";
import { checkSeedDatasets, checkSeedUniqueness } from "./seed-rules";

/** A seed file that cannot be used; `errors` holds each problem with its location. */
export class SeedFileError extends SvcError {
  declare readonly file: string;
  constructor(
    file: string,
    readonly errors: LoadError[],
  ) {
    const n = errors.length;
    super(
      "seed_file_invalid",
      `${errors.map(formatLoadError).join("\n")}\n${n} error${n === 1 ? "" : "s"} in the seed file ${file}; the emulator did not start.`,
      { file },
    );
    this.name = "SeedFileError";
  }
}

/** Reads, parses and checks a seed file; throws a {@link SeedFileError} naming every problem, or an Error when it cannot be read. */
export function loadSeedFile(file: string): SeedSpec {
  const readable = (rows: string) => {
    try {
      return statSync(isAbsolute(rows) ? rows : resolve(dirname(file), rows)).isFile();
    } catch {
      return false;
    }
  };
  const seed = parseSeedText(file, readSeedText(file), readable);
  // Rows files are named relative to the seed file.
  for (const d of seed.datasets ?? [])
    if (typeof d.rows === "string" && !isAbsolute(d.rows)) d.rows = resolve(dirname(file), d.rows);
  return seed;
}

function readSeedText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR")
      throw new SvcError("seed_file_missing", `the seed file ${file} does not exist (looked for ${resolve(file)}).`);
    if (code === "EISDIR")
      throw new SvcError(
        "seed_file_invalid",
        `the seed file ${file} is a folder (${resolve(file)}); expected a YAML or JSON file.`,
      );
    throw new SvcError(
      "seed_file_unreadable",
      `the seed file ${file} cannot be read (${resolve(file)}): ${(e as Error).message}`,
    );
  }
}

/** The seed in `text` (YAML, or JSON, which YAML reads too, with positions). Pure. */
export function parseSeedText(file: string, text: string, rowsFile?: (path: string) => boolean): SeedSpec {
  const diag = new Diagnostics();
  const src = parseYaml(file, text, diag);
  if (!src) throw new SeedFileError(file, diag.errors);
  const checked = checkDocument(src, SeedSpec);
  const locate = (path: (string | number)[]) => locatePath(src, path);
  const errors = [
    ...checked.errors.errors,
    ...checkSeedUniqueness(checked.data, locate),
    ...checkSeedDatasets(checked.data, locate, rowsFile),
  ];
  if (errors.length || !checked.value) throw new SeedFileError(file, sortByPosition(errors));
  return checked.value;
}

const sortByPosition = (errors: LoadError[]) => [...errors].sort((a, b) => a.line - b.line || a.column - b.column);
