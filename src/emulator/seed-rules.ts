/**
 * What a seed must hold once, beyond its schema: team names, handles, client ids, buckets, tokens,
 * dataset folders. Two of a kind would break the start (the store keeps them unique) or hide one
 * from the ready line. Pure: the caller says where a path is in the file.
 */
import type { LoadError, SourceLocation } from "../model/desired";
import { bucketUrl, parseStoragePath } from "./object-store";
import { pathText } from "./schema-errors";

type Path = (string | number)[];
type Locate = (path: Path) => SourceLocation;

interface Seen {
  path: Path;
  /** How the first one is named in the message, e.g. `team "acme"`. */
  label?: string;
}

/** Reports the second and later uses of each key, pointing at the first. */
class OnceEach {
  private readonly first = new Map<string, Seen>();
  constructor(
    private readonly locate: Locate,
    private readonly errors: LoadError[],
  ) {}

  see(key: string, at: Path, message: (first: Seen, line: number) => string, label?: string): void {
    const first = this.first.get(key);
    if (!first) {
      this.first.set(key, { path: at, label });
      return;
    }
    this.errors.push({ ...this.locate(at), message: message(first, this.locate(first.path).line) });
  }
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const list = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v)
    ? v.map((x) => (x !== null && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : {}))
    : [];

/** Every repeated name, id, bucket and token of the seed (as parsed, valid or not). */
export function checkSeedUniqueness(seed: unknown, locate: Locate): LoadError[] {
  const errors: LoadError[] = [];
  const once = () => new OnceEach(locate, errors);
  const root = seed !== null && typeof seed === "object" ? (seed as Record<string, unknown>) : {};
  const teams = once();
  const handles = once();
  const labels = once();
  const clientIds = once();
  const buckets = once();
  const tokens = once();
  list(root.teams).forEach((team, ti) => {
    const teamName = str(team.name);
    const at = (...rest: Path): Path => ["teams", ti, ...rest];
    if (teamName !== undefined) {
      teams.see(
        teamName,
        at("name"),
        (_, line) =>
          `duplicate team name ${JSON.stringify(teamName)} (first at line ${line}); each team needs its own name (it becomes execution environment env-${teamName})`,
      );
    }
    list(team.instances).forEach((inst, ii) => {
      const given = str(inst.client_id);
      const id =
        given ?? (teamName !== undefined && str(inst.name) !== undefined ? `rt-${teamName}-${inst.name}` : undefined);
      if (id === undefined) return;
      const where = at("instances", ii, given !== undefined ? "client_id" : "name");
      const from = (first: Seen, line: number) =>
        first.label === "derived"
          ? `: the instance at line ${line} gets the same one from its team and name`
          : ` (first at line ${line})`;
      clientIds.see(
        id,
        where,
        (first, line) =>
          given !== undefined
            ? `duplicate client_id ${JSON.stringify(id)}${from(first, line)}; each real-time instance needs its own client_id`
            : `this instance's client_id is ${JSON.stringify(id)} (from its team and name), which the instance at line ${line} already has; give it another name or its own client_id`,
        given !== undefined ? "given" : "derived",
      );
    });
    (Array.isArray(team.buckets) ? (team.buckets as unknown[]) : []).forEach((b, bi) => {
      const url = str(b)?.replace(/\/$/, "");
      if (url === undefined) return;
      buckets.see(
        url,
        at("buckets", bi),
        (first, line) =>
          `duplicate bucket ${JSON.stringify(url)} (first at line ${line}, ${first.label}); a bucket belongs to one team`,
        `team ${JSON.stringify(teamName)}`,
      );
    });
    list(team.users).forEach((user, ui) => {
      const handle = str(user.handle);
      if (handle !== undefined) {
        handles.see(
          handle,
          at("users", ui, "handle"),
          (_, line) =>
            `duplicate handle ${JSON.stringify(handle)} (first at line ${line}); each user needs their own handle`,
        );
      }
      // The ready line's `users` names each user by handle, else by name; two handles are the handle rule's.
      const label = handle ?? str(user.name);
      if (label !== undefined) {
        const where = at("users", ui, handle !== undefined ? "handle" : "name");
        labels.see(
          label,
          where,
          (first, line) =>
            handle === undefined
              ? `another user goes by ${JSON.stringify(label)} (line ${line}); give this one a handle: the ready line's "users" names each user by handle, else by name`
              : first.label === "name"
                ? `a user without a handle is named ${JSON.stringify(label)} (line ${line}); give that one a handle: the ready line's "users" names each user by handle, else by name`
                : "",
          handle !== undefined ? "handle" : "name",
        );
      }
      seeToken(tokens, user.token, at("users", ui, "token"));
    });
    const accounts = once();
    list(team.service_accounts).forEach((sa, si) => {
      const name = str(sa.name);
      if (name !== undefined) {
        accounts.see(
          name,
          at("service_accounts", si, "name"),
          (_, line) =>
            `duplicate service account ${JSON.stringify(name)} in team ${JSON.stringify(teamName)} (first at line ${line}); the ready line's "service_accounts" names each as team/name`,
        );
      }
      seeToken(tokens, sa.token, at("service_accounts", si, "token"));
    });
  });
  const datasets = once();
  list(root.datasets).forEach((d, di) => {
    const path = str(d.path);
    if (path !== undefined)
      datasets.see(
        path,
        ["datasets", di, "path"],
        (_, line) =>
          `duplicate dataset path ${JSON.stringify(path)} (first at line ${line}); each dataset needs its own folder`,
      );
  });
  return errors.filter((e) => e.message !== "");
}

/** Tokens are compared, never shown. */
function seeToken(tokens: OnceEach, token: unknown, at: Path): void {
  if (typeof token !== "string") return;
  tokens.see(
    token,
    at,
    (first, line) =>
      `the same token as ${pathText(first.path)} (line ${line}); each user and service account needs its own token`,
  );
}

/**
 * Each dataset's folder in a bucket of some team (the indexer needs its owner), and each rows
 * file there to read (`rowsFile` says whether a path names a readable file; relative paths are
 * the seed file's). Checked with the rest, so the start stops before anything is made.
 */
export function checkSeedDatasets(seed: unknown, locate: Locate, rowsFile?: (path: string) => boolean): LoadError[] {
  const errors: LoadError[] = [];
  const root = seed !== null && typeof seed === "object" ? (seed as Record<string, unknown>) : {};
  const owned = new Set<string>();
  for (const team of list(root.teams)) {
    for (const b of Array.isArray(team.buckets) ? (team.buckets as unknown[]) : [])
      if (typeof b === "string") owned.add(b.replace(/\/$/, ""));
  }
  list(root.datasets).forEach((d, di) => {
    const bucket = bucketOf(str(d.path));
    if (bucket !== undefined && !owned.has(bucket)) {
      const known = [...owned].sort();
      errors.push({
        ...locate(["datasets", di, "path"]),
        message: `found bucket ${JSON.stringify(bucket)}, expected a bucket of one of the seed's teams (${known.length ? known.join(", ") : "no team has buckets"}): add it to a team's buckets`,
      });
    }
    const rows = str(d.rows);
    if (rows !== undefined && rowsFile && !rowsFile(rows))
      errors.push({
        ...locate(["datasets", di, "rows"]),
        message: `the rows file ${JSON.stringify(rows)} does not exist or cannot be read (paths are relative to the seed file)`,
      });
  });
  return errors;
}

/** The bucket of a dataset path as the indexer reads it (`s3://b`), or undefined when the path is not one (its schema error says so). */
function bucketOf(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return bucketUrl(parseStoragePath(path));
  } catch {
    return undefined;
  }
}
