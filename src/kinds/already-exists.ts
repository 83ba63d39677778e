/**
 * A create refused before anything was sent, because an object with the wanted natural key
 * already exists and cannot be adopted (a service account, whose token cannot be read). The
 * engine knows from it that no object was made under that key by this attempt.
 */
import { SvcError } from "../errors";

export class AlreadyExistsError extends SvcError {
  constructor(
    message: string,
    readonly key: string,
  ) {
    super("already_exists", message);
    this.name = "AlreadyExistsError";
  }
}

export const isAlreadyExists = (e: unknown): e is AlreadyExistsError => e instanceof AlreadyExistsError;
