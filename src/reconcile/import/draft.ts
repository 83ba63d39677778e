/**
 * What an import produces before anything is written: the repository files, the inventory entries
 * that bind the imported objects to the project, the objects left out (each with its reason) and
 * the environment variables the files read. Pure data, built in a deterministic order.
 */
import type { DesiredKind } from "../../model/desired";
import { byString } from "../phases";

/** One file of the repository: path relative to its root (`/` separators) and exact text. */
export interface RepoFile {
  path: string;
  text: string;
}

/** An imported object, as the inventory will record it. */
export interface Binding {
  address: string;
  kind: DesiredKind;
  id: string;
  /** The natural key as apply records it (`<canvasId>/<slug>` for a UDF). */
  key: string;
  /** What the inventory keeps beside the id (see InventoryEntry.kept); never a secret. */
  kept?: Record<string, unknown>;
}

/** An object on the platform the repository format cannot hold (or that was not selected). */
export interface Skipped {
  /** `cronjob "nightly run"`, `udf sales/x`: how the user recognizes it. */
  object: string;
  id: string;
  reason: string;
}

/** An environment variable a written file reads (`${env.NAME}`), and what it must hold. */
export interface EnvVar {
  name: string;
  holds: string;
}

export interface ImportDraft {
  /** Each with the addresses of the objects it declares (for an import of single objects). */
  files: (RepoFile & { owners?: string[] })[];
  bindings: Binding[];
  skipped: Skipped[];
  /** Things imported with a loss the user should know about (a UDF body field the format does not keep). */
  notes: string[];
  envVars: EnvVar[];
}

/** Collects the draft; `done()` sorts every list so the output never depends on listing order. */
export class DraftBuilder {
  private readonly files = new Map<string, string>();
  private readonly owners = new Map<string, Set<string>>();
  private readonly bindings: Binding[] = [];
  private readonly skipped: Skipped[] = [];
  private readonly notes: string[] = [];
  private readonly envVars = new Map<string, string>();

  /** A file; `owner`: the address of an object it declares (a helper module may have several). */
  file(path: string, text: string, owner?: string): void {
    this.files.set(path, text);
    if (owner) this.owners.set(path, (this.owners.get(path) ?? new Set()).add(owner));
  }

  bind(b: Binding): void {
    this.bindings.push(b);
  }

  skip(object: string, id: string, reason: string): void {
    this.skipped.push({ object, id, reason });
  }

  note(text: string): void {
    this.notes.push(text);
  }

  /** An environment variable name for `wanted` (made a valid name, unique), recorded with what it holds. */
  envVar(wanted: string, holds: string): string {
    let base = wanted.replace(/[^A-Za-z0-9_]/g, "_");
    if (!/^[A-Za-z_]/.test(base)) base = `_${base}`;
    let name = base;
    for (let i = 2; this.envVars.has(name) && this.envVars.get(name) !== holds; i++) name = `${base}_${i}`;
    this.envVars.set(name, holds);
    return name;
  }

  done(): ImportDraft {
    return {
      files: [...this.files]
        .map(([path, text]) => {
          const owners = this.owners.get(path);
          return { path, text, ...(owners ? { owners: [...owners].sort(byString) } : {}) };
        })
        .sort((a, b) => byString(a.path, b.path)),
      bindings: [...this.bindings].sort((a, b) => byString(a.address, b.address)),
      skipped: [...this.skipped].sort((a, b) => byString(a.object, b.object) || byString(a.id, b.id)),
      notes: [...this.notes].sort(byString),
      envVars: [...this.envVars].map(([name, holds]) => ({ name, holds })).sort((a, b) => byString(a.name, b.name)),
    };
  }
}
