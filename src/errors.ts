/**
 * The project's one error family. Every error class of svc-iac extends {@link SvcError}: a stable
 * snake_case `code` a caller (or a script reading `--json`) may branch on, the file and position
 * when the error is about one, and a message scrubbed of secrets when the error is built, never
 * later (as octokit's `RequestError` redacts its request). Sits below every folder: imports only
 * `scrub.ts`. `test/errors.test.ts` reads the source and fails on an error class outside the family.
 */
import { scrub } from "./scrub";

/** What an error may say besides its code and message. */
export interface SvcErrorOptions {
  /** The file the error is about, as the user wrote it (relative to the project folder when it is in one). */
  file?: string;
  /** 1-based line in {@link file}. */
  line?: number;
  /** 1-based column in {@link file}. */
  column?: number;
  /** Values that must not appear in the message or the file (tokens, passcodes, secret values). */
  secrets?: readonly string[];
  /** The error this one reports; kept as it is (classes that may see secrets in it scrub it themselves). */
  cause?: unknown;
}

/** A stable error code: lower-case words joined by underscores (`state_file_invalid`). */
export const ERROR_CODE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/**
 * The base of every svc-iac error.
 *
 * @example
 * class LockedError extends SvcError {
 *   constructor(location: string) {
 *     super("locked", `State ${location} is locked.`);
 *   }
 * }
 */
export class SvcError extends Error {
  /** Stable, snake_case: what kind of failure this is (`locked`, `repository_jail`, `not_found`). */
  readonly code: string;
  /** The file the error is about; undefined when it is about none. */
  readonly file: string | undefined;
  /** 1-based line in {@link file}; undefined when unknown. */
  readonly line: number | undefined;
  /** 1-based column in {@link file}; undefined when unknown. */
  readonly column: number | undefined;

  constructor(code: string, message: string, options: SvcErrorOptions = {}) {
    const secrets = options.secrets ?? [];
    super(scrub(message, secrets), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.file = options.file === undefined ? undefined : scrub(options.file, secrets);
    this.line = options.line;
    this.column = options.column;
  }

  /** `file:line:column` (as much of it as is known); undefined when the error is about no file. */
  get where(): string | undefined {
    if (this.file === undefined) return undefined;
    return [this.file, this.line, this.line === undefined ? undefined : this.column]
      .filter((x) => x !== undefined)
      .join(":");
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      ...(this.file === undefined ? {} : { file: this.file }),
      ...(this.line === undefined ? {} : { line: this.line }),
      ...(this.column === undefined ? {} : { column: this.column }),
    };
  }
}

/** The code of any thrown value: an {@link SvcError}'s own, else `failed` (a plain `Error`, or Node's own). */
export function errorCodeOf(e: unknown): string {
  return e instanceof SvcError ? e.code : "failed";
}
