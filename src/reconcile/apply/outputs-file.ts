/**
 * The `--outputs` file: where apply writes new tokens (service accounts, shared tokens, share
 * tokens) so a later step can hand them on. JSON, readable by its owner only (mode 0600):
 *
 * ```json
 * { "tokens": { "service_account.ci": { "kind": "ServiceAccount", "name": "SVC_SERVICE_ACCOUNT_CI_TOKEN", "token": "…", "updatedAt": "…" } }, "version": 1 }
 * ```
 *
 * Each publish merges one token into the file (other addresses stay) and replaces the file in one
 * step, so a crash never leaves a file missing the tokens written before.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { PublishedToken, TokenPublisher } from "../commands/command-types";
import { stableJsonText, writeFileAtomic } from "../state/json-file";
import { RepositoryJail } from "../../repository/jail";
import { SvcError } from "../../errors";

export const OUTPUTS_VERSION = 1;

/** One token in the outputs file. */
export interface OutputsFileEntry {
  /** Environment variable / GitHub secret name: `SVC_SERVICE_ACCOUNT_CI_TOKEN`. */
  name: string;
  kind: string;
  token: string;
  /** When it was written (ISO 8601). */
  updatedAt: string;
}

export interface OutputsFile {
  version: typeof OUTPUTS_VERSION;
  /** By address. */
  tokens: Record<string, OutputsFileEntry>;
}

/** Owner read and write only: the file holds credentials. */
const OUTPUTS_MODE = 0o600;

/**
 * The environment variable (and GitHub secret) name for an address's token: `SVC_`, the address
 * upper-cased with every run of other characters as `_`, then `_TOKEN`.
 * @example tokenEnvName("service_account.ci-bot") // "SVC_SERVICE_ACCOUNT_CI_BOT_TOKEN"
 * @example tokenEnvName("udf.sales/loader") // "SVC_UDF_SALES_LOADER_TOKEN"
 */
export function tokenEnvName(address: string): string {
  const middle = address
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return `SVC_${middle}_TOKEN`;
}

/**
 * Reads an outputs file; `undefined` when there is none.
 * @throws Error naming the file when it is not an outputs file (its content is never quoted: it holds tokens).
 */
export async function readOutputsFile(file: string, repository?: string): Promise<OutputsFile | undefined> {
  let text: string;
  if (repository !== undefined) {
    // Inside the repository only through its jail: a link planted at the path is refused, not followed.
    const read = RepositoryJail.forProject(repository).readOperatorFile(file);
    if (read.kind === "refused")
      throw new SvcError("outputs_file_refused", `The outputs file ${file} cannot be used: ${read.message}.`);
    if (read.kind === "missing") {
      if (read.folder)
        throw new SvcError(
          "outputs_file_refused",
          `The outputs file ${file} is a folder: --outputs takes the path of a file, e.g. ${path.join(file, "outputs.json")}.`,
        );
      return undefined;
    }
    text = read.text;
  } else {
    try {
      text = await readFile(file, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException)?.code;
      if (code === "ENOENT") return undefined;
      if (code === "EISDIR")
        throw new SvcError(
          "outputs_file_refused",
          `The outputs file ${file} is a folder: --outputs takes the path of a file, e.g. ${path.join(file, "outputs.json")}.`,
        );
      throw new SvcError(
        "outputs_file_unreadable",
        `The outputs file ${file} cannot be read (${code ?? (e as Error).message}).`,
      );
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new SvcError(
      "outputs_file_invalid",
      `The outputs file ${file} is not valid JSON, so new tokens cannot be merged into it. Move it away (it may hold tokens) and run again.`,
    );
  }
  const d = data as Partial<OutputsFile> | null;
  if (
    !d ||
    typeof d !== "object" ||
    d.version !== OUTPUTS_VERSION ||
    !d.tokens ||
    typeof d.tokens !== "object" ||
    Array.isArray(d.tokens)
  ) {
    throw new SvcError(
      "outputs_file_invalid",
      `The outputs file ${file} is not an svc-iac outputs file (expected {"version": ${OUTPUTS_VERSION}, "tokens": {…}}). Move it away (it may hold tokens) or choose another --outputs path.`,
    );
  }
  return d as OutputsFile;
}

// Publishes to one file run one after another, so concurrent applies of two tokens both land.
const queues = new Map<string, Promise<unknown>>();

function serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const next = previous.then(work, work);
  const tail = next.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return next;
}

/**
 * A {@link TokenPublisher} writing to the outputs file `file` (created with its folder when
 * missing, always left with mode 0600).
 */
export function outputsPublisher(file: string, opts: { now?: () => Date; repository?: string } = {}): TokenPublisher {
  const now = opts.now ?? (() => new Date());
  return {
    name: `outputs file ${file}`,
    publish: (token: PublishedToken) =>
      serialized(path.resolve(file), async () => {
        const current = (await readOutputsFile(file, opts.repository)) ?? { version: OUTPUTS_VERSION, tokens: {} };
        const entry: OutputsFileEntry = {
          name: token.name,
          kind: token.kind,
          token: token.token,
          updatedAt: now().toISOString(),
        };
        const next: OutputsFile = { version: OUTPUTS_VERSION, tokens: { ...current.tokens, [token.address]: entry } };
        if (opts.repository !== undefined)
          RepositoryJail.forProject(opts.repository).writeOperatorFile(file, stableJsonText(next), {
            mode: OUTPUTS_MODE,
          });
        else await writeFileAtomic(file, stableJsonText(next), { mode: OUTPUTS_MODE });
      }),
  };
}
