/**
 * A local stand-in for the parts of GitHub's REST API that `src/github` uses: issue comments,
 * issues, and Actions secrets (repository and environment) with a real libsodium key pair. Keeps
 * state in memory, records every request (method, path, body, authorization) for assertions, and
 * pages listings with Link headers as GitHub does.
 *
 * GIVEN a test starts it, points `GITHUB_API_URL` (or Octokit's `baseUrl`) at `url`, and reads
 * `calls`, `comments`, `issues` and `decryptSecret()` afterwards. Comments and issues record their
 * author: the login of the token that wrote them (see {@link FakeGithubOptions.users}).
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import sodium from "libsodium-wrappers";
import type { DriftReport, Plan, PlannedAction } from "../../src/reconcile/plan/plan-model";

export interface RecordedCall {
  method: string;
  /** Path with query string, as sent. */
  path: string;
  /** Raw request body ("" when none). */
  body: string;
  authorization?: string;
}

export interface FakeComment {
  id: number;
  issueNumber: number;
  body: string;
  user: string;
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  state_reason?: string | null;
  labels: string[];
  /** True for pull requests, which GitHub lists among issues. */
  isPullRequest: boolean;
  /** The author's login. */
  user: string;
}

export interface StoredSecret {
  encrypted_value: string;
  key_id: string;
}

export interface FakeCheckRun {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  output: { title?: string; summary?: string; text?: string };
  external_id: string | null;
  /** The GitHub App that wrote it, as GitHub reports it. */
  app: FakeApp;
}

export interface FakeApp {
  id: number;
  slug: string;
}

/** A pull request made through `POST /pulls` (kept apart from the issue list's plain pull requests). */
export interface FakePull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  state: "open" | "closed";
}

export interface FakeGithubOptions {
  owner?: string;
  repo?: string;
  /** Largest page the server returns, whatever `per_page` asks for (to test paging). @default 100 */
  maxPerPage?: number;
  /**
   * Who each token is: a user token's login (`GET /user` answers it), or, for a token missing
   * here, the workflow token: `GET /user` answers 403 and what it writes is authored by
   * `github-actions[bot]`.
   */
  users?: Record<string, string>;
  /**
   * The GitHub App each token writes check runs as; a token missing here writes as the workflow
   * token does, as `github-actions` (app id 15368).
   */
  apps?: Record<string, FakeApp>;
  /**
   * Jobs racing to edit one comment, at their worst: each check run is written after a random
   * wait of up to `checkRunDelayMs` (so a job may read the check runs before another's is
   * written), and the comment edits arriving within `holdEditsMs` of each other are applied
   * together, the longest body first: the edit that knew the least lands last, as a slow job's
   * stale edit would.
   */
  race?: { checkRunDelayMs: number; holdEditsMs: number };
}

export interface FakeGithub {
  url: string;
  owner: string;
  repo: string;
  calls: RecordedCall[];
  comments: FakeComment[];
  issues: FakeIssue[];
  /** Check runs, oldest first (GitHub lists the newest per name with `filter=latest`). */
  checkRuns: FakeCheckRun[];
  /** Secrets by `repo:<NAME>` or `env:<environment>:<NAME>`. */
  secrets: Map<string, StoredSecret>;
  publicKeyId: string;
  /** A pull request (an issue number comments can be posted on). */
  addPullRequest(title?: string): number;
  addComment(issueNumber: number, body: string, user?: string): FakeComment;
  addIssue(issue: Partial<FakeIssue> & { title: string; body: string }): FakeIssue;
  /** Answers the next request matching `method` and `pathPrefix` with `status` and a GitHub-style error. */
  failNext(method: string, pathPrefix: string, status: number, message: string): void;
  /** Opens a stored secret with the server's private key; undefined when there is none. */
  decryptSecret(name: string, environment?: string): string | undefined;
  /** Calls that change something (everything but GET). */
  writes(): RecordedCall[];
  /** Pull requests made through `POST /pulls`. */
  pulls: FakePull[];
  /** Makes `branch` one commit holding `files` (path → text); returns the commit's sha. */
  seedBranch(branch: string, files: Record<string, string>): string;
  /** The files of `branch`'s head commit (path → text); undefined when there is no such branch. */
  branchFiles(branch: string): Record<string, string> | undefined;
  close(): Promise<void>;
}

/** The login of what the workflow's GITHUB_TOKEN writes. */
const WORKFLOW_BOT = "github-actions[bot]";
/** The app GitHub reports for check runs the workflow's GITHUB_TOKEN writes. */
export const WORKFLOW_APP: FakeApp = { id: 15368, slug: "github-actions" };

interface Failure {
  method: string;
  pathPrefix: string;
  status: number;
  message: string;
}

/** Starts the fake on a free port of 127.0.0.1. */
export async function startFakeGithub(opts: FakeGithubOptions = {}): Promise<FakeGithub> {
  await sodium.ready;
  const keyPair = sodium.crypto_box_keypair();
  const owner = opts.owner ?? "acme";
  const repo = opts.repo ?? "infra";
  const maxPerPage = opts.maxPerPage ?? 100;
  const users = opts.users ?? {};
  /** The user behind a request's token; undefined for the workflow token (any token not in `users`). */
  const userOf = (call: RecordedCall): string | undefined =>
    users[(call.authorization ?? "").replace(/^(token|bearer) /i, "")];
  const authorOf = (call: RecordedCall) => userOf(call) ?? WORKFLOW_BOT;
  const apps = opts.apps ?? {};
  const appOf = (call: RecordedCall): FakeApp =>
    apps[(call.authorization ?? "").replace(/^(token|bearer) /i, "")] ?? WORKFLOW_APP;
  const failures: Failure[] = [];
  let nextCommentId = 1000;
  let nextNumber = 1;

  // The git data API: content-addressed objects (blob ids as git makes them), trees kept flat by path.
  const git = {
    blobs: new Map<string, string>(),
    trees: new Map<string, Map<string, string>>(),
    commits: new Map<string, { tree: string; parents: string[]; message: string }>(),
    refs: new Map<string, string>(),
  };
  const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");
  const putBlob = (text: string) => {
    const bytes = Buffer.from(text, "utf8");
    const sha = createHash("sha1")
      .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
      .digest("hex");
    git.blobs.set(sha, text);
    return sha;
  };
  const putTree = (entries: Map<string, string>) => {
    const sha = sha1(`tree ${JSON.stringify([...entries].sort())}`);
    git.trees.set(sha, entries);
    return sha;
  };
  const putCommit = (tree: string, parents: string[], message: string) => {
    const sha = sha1(`commit ${tree} ${parents.join(",")} ${message}`);
    git.commits.set(sha, { tree, parents, message });
    return sha;
  };
  const treeJson = (sha: string) => ({
    sha,
    truncated: false,
    tree: [...git.trees.get(sha)!].map(([path, blob]) => ({ path, mode: "100644", type: "blob", sha: blob })),
  });
  const pulls: FakePull[] = [];
  const pullJson = (p: FakePull) => ({
    number: p.number,
    title: p.title,
    body: p.body,
    state: p.state,
    head: { ref: p.head, label: `${owner}:${p.head}` },
    base: { ref: p.base },
    html_url: `${webUrl()}/pull/${p.number}`,
  });

  const state = {
    calls: [] as RecordedCall[],
    comments: [] as FakeComment[],
    issues: [] as FakeIssue[],
    checkRuns: [] as FakeCheckRun[],
    secrets: new Map<string, StoredSecret>(),
  };
  const publicKeyId = "568250167242549743";
  let base = "";
  const webUrl = () => `${base}/web/${owner}/${repo}`;

  const commentJson = (c: FakeComment) => ({
    id: c.id,
    body: c.body,
    user: { login: c.user },
    html_url: `${webUrl()}/issues/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${base}/repos/${owner}/${repo}/issues/${c.issueNumber}`,
  });
  const checkRunJson = (r: FakeCheckRun) => ({ ...r, html_url: `${webUrl()}/runs/${r.id}` });
  const issueJson = (i: FakeIssue) => ({
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state,
    state_reason: i.state_reason ?? null,
    labels: i.labels.map((name) => ({ name })),
    user: { login: i.user },
    html_url: `${webUrl()}/${i.isPullRequest ? "pull" : "issues"}/${i.number}`,
    ...(i.isPullRequest ? { pull_request: { url: `${base}/repos/${owner}/${repo}/pulls/${i.number}` } } : {}),
  });

  const addIssue: FakeGithub["addIssue"] = (issue) => {
    const created: FakeIssue = {
      number: nextNumber++,
      state: "open",
      labels: [],
      isPullRequest: false,
      state_reason: null,
      user: WORKFLOW_BOT,
      ...issue,
    };
    state.issues.push(created);
    return created;
  };
  const addComment: FakeGithub["addComment"] = (issueNumber, body, user = WORKFLOW_BOT) => {
    const c = { id: nextCommentId++, issueNumber, body, user };
    state.comments.push(c);
    return c;
  };

  /** Comment edits held to be applied together (see FakeGithubOptions.race). */
  const held: { length: number; handle: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    readBody(req).then(
      (body) => {
        const call: RecordedCall = {
          method: req.method ?? "GET",
          path: req.url ?? "/",
          body,
          authorization: req.headers.authorization,
        };
        const handle = () => {
          state.calls.push(call);
          try {
            route(call, res);
          } catch (e) {
            send(res, 500, { message: `fake GitHub failed: ${(e as Error).message}` });
          }
        };
        const race = opts.race;
        if (race && call.method === "POST" && /\/check-runs$/.test(call.path))
          setTimeout(handle, Math.random() * race.checkRunDelayMs);
        else if (race && call.method === "PATCH" && /\/issues\/comments\/\d+$/.test(call.path)) {
          if (!held.length)
            setTimeout(() => {
              for (const h of held.splice(0).sort((x, y) => y.length - x.length)) h.handle();
            }, race.holdEditsMs);
          held.push({ length: body.length, handle });
        } else handle();
      },
      () => send(res, 400, { message: "unreadable body" }),
    );
  });

  function route(call: RecordedCall, res: ServerResponse): void {
    const url = new URL(call.path, base);
    const failure = failures.findIndex((f) => f.method === call.method && url.pathname.startsWith(f.pathPrefix));
    if (failure >= 0) {
      const [f] = failures.splice(failure, 1);
      return send(res, f.status, { message: f.message, documentation_url: "https://docs.github.com/rest" });
    }
    if (url.pathname === "/user" && call.method === "GET") {
      const login = userOf(call);
      if (!login)
        return send(res, 403, {
          message: "Resource not accessible by integration",
          documentation_url: "https://docs.github.com/rest/users/users#get-the-authenticated-user",
        });
      return send(res, 200, { login, id: 1, type: "User" });
    }
    const prefix = `/repos/${owner}/${repo}`;
    if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return notFound(res);
    const path = url.pathname.slice(prefix.length);
    const json = call.body ? (JSON.parse(call.body) as Record<string, unknown>) : {};
    let m: RegExpExecArray | null;

    if ((m = /^\/issues\/(\d+)\/comments$/.exec(path))) {
      const number = Number(m[1]);
      if (!state.issues.some((i) => i.number === number)) return notFound(res);
      if (call.method === "GET")
        return page(res, url, state.comments.filter((c) => c.issueNumber === number).map(commentJson));
      if (call.method === "POST")
        return send(res, 201, commentJson(addComment(number, String(json.body), authorOf(call))));
    }
    if ((m = /^\/issues\/comments\/(\d+)$/.exec(path))) {
      const c = state.comments.find((x) => x.id === Number(m![1]));
      if (!c) return notFound(res);
      if (call.method === "PATCH") {
        c.body = String(json.body);
        return send(res, 200, commentJson(c));
      }
      if (call.method === "DELETE") {
        state.comments.splice(state.comments.indexOf(c), 1);
        return send(res, 204);
      }
    }
    if (path === "/issues") {
      if (call.method === "GET") {
        const wantState = url.searchParams.get("state") ?? "open";
        const labels = (url.searchParams.get("labels") ?? "").split(",").filter(Boolean);
        const list = state.issues.filter(
          (i) => (wantState === "all" || i.state === wantState) && labels.every((l) => i.labels.includes(l)),
        );
        return page(res, url, list.map(issueJson));
      }
      if (call.method === "POST") {
        const labels = Array.isArray(json.labels) ? json.labels.map(String) : [];
        return send(
          res,
          201,
          issueJson(
            addIssue({ title: String(json.title), body: String(json.body ?? ""), labels, user: authorOf(call) }),
          ),
        );
      }
    }
    if ((m = /^\/issues\/(\d+)$/.exec(path))) {
      const issue = state.issues.find((i) => i.number === Number(m![1]));
      if (!issue) return notFound(res);
      if (call.method === "GET") return send(res, 200, issueJson(issue));
      if (call.method === "PATCH") {
        if (typeof json.title === "string") issue.title = json.title;
        if (typeof json.body === "string") issue.body = json.body;
        if (json.state === "open" || json.state === "closed") issue.state = json.state;
        if ("state_reason" in json) issue.state_reason = json.state_reason as string | null;
        return send(res, 200, issueJson(issue));
      }
    }
    if (path === "" && call.method === "GET") return send(res, 200, { name: repo, default_branch: "main" });
    if ((m = /^\/git\/ref\/(.+)$/.exec(path)) && call.method === "GET") {
      const ref = decodeURIComponent(m[1]!);
      const sha = git.refs.get(ref);
      return sha ? send(res, 200, { ref: `refs/${ref}`, object: { sha, type: "commit" } }) : notFound(res);
    }
    if (path === "/git/refs" && call.method === "POST") {
      const ref = String(json.ref).replace(/^refs\//, "");
      if (git.refs.has(ref)) return send(res, 422, { message: "Reference already exists" });
      if (!git.commits.has(String(json.sha))) return send(res, 422, { message: "Object does not exist" });
      git.refs.set(ref, String(json.sha));
      return send(res, 201, { ref: `refs/${ref}`, object: { sha: json.sha, type: "commit" } });
    }
    if ((m = /^\/git\/refs\/(.+)$/.exec(path)) && call.method === "PATCH") {
      const ref = decodeURIComponent(m[1]!);
      if (!git.refs.has(ref)) return notFound(res);
      if (!git.commits.has(String(json.sha))) return send(res, 422, { message: "Object does not exist" });
      git.refs.set(ref, String(json.sha));
      return send(res, 200, { ref: `refs/${ref}`, object: { sha: json.sha, type: "commit" } });
    }
    if (path === "/git/blobs" && call.method === "POST") {
      const text =
        json.encoding === "base64"
          ? Buffer.from(String(json.content), "base64").toString("utf8")
          : String(json.content);
      return send(res, 201, { sha: putBlob(text) });
    }
    if (path === "/git/trees" && call.method === "POST") {
      const base = json.base_tree ? git.trees.get(String(json.base_tree)) : new Map<string, string>();
      if (!base) return send(res, 422, { message: "base_tree does not exist" });
      const entries = new Map(base);
      for (const e of (json.tree as { path: string; sha: string }[]) ?? []) {
        if (!git.blobs.has(e.sha)) return send(res, 422, { message: `blob ${e.sha} does not exist` });
        entries.set(e.path, e.sha);
      }
      return send(res, 201, treeJson(putTree(entries)));
    }
    if ((m = /^\/git\/trees\/([0-9a-f]+)$/.exec(path)) && call.method === "GET")
      return git.trees.has(m[1]!) ? send(res, 200, treeJson(m[1]!)) : notFound(res);
    if (path === "/git/commits" && call.method === "POST") {
      const tree = String(json.tree);
      if (!git.trees.has(tree)) return send(res, 422, { message: "tree does not exist" });
      const sha = putCommit(tree, ((json.parents as string[]) ?? []).map(String), String(json.message));
      return send(res, 201, { sha, tree: { sha: tree }, parents: (json.parents as string[]).map((p) => ({ sha: p })) });
    }
    if ((m = /^\/git\/commits\/([0-9a-f]+)$/.exec(path)) && call.method === "GET") {
      const c = git.commits.get(m[1]!);
      return c
        ? send(res, 200, {
            sha: m[1],
            tree: { sha: c.tree },
            parents: c.parents.map((p) => ({ sha: p })),
            message: c.message,
          })
        : notFound(res);
    }
    if (path === "/pulls" && call.method === "GET") {
      const head = url.searchParams.get("head");
      const wantState = url.searchParams.get("state") ?? "open";
      const list = pulls.filter(
        (p) => (wantState === "all" || p.state === wantState) && (!head || `${owner}:${p.head}` === head),
      );
      return page(res, url, list.map(pullJson));
    }
    if (path === "/pulls" && call.method === "POST") {
      if (!git.refs.has(`heads/${String(json.head)}`)) return send(res, 422, { message: "head does not exist" });
      const p: FakePull = {
        number: nextNumber++,
        title: String(json.title),
        body: String(json.body ?? ""),
        head: String(json.head),
        base: String(json.base),
        state: "open",
      };
      pulls.push(p);
      return send(res, 201, pullJson(p));
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(path)) && call.method === "PATCH") {
      const p = pulls.find((x) => x.number === Number(m![1]));
      if (!p) return notFound(res);
      if (typeof json.title === "string") p.title = json.title;
      if (typeof json.body === "string") p.body = json.body;
      return send(res, 200, pullJson(p));
    }
    if (path === "/check-runs" && call.method === "POST") {
      const run: FakeCheckRun = {
        id: nextCommentId++,
        name: String(json.name),
        head_sha: String(json.head_sha),
        status: String(json.status ?? "queued"),
        conclusion: (json.conclusion as string) ?? null,
        output: (json.output as FakeCheckRun["output"]) ?? {},
        external_id: typeof json.external_id === "string" ? json.external_id : null,
        app: appOf(call),
      };
      if ((run.output.summary ?? "").length > 65_535)
        return send(res, 422, {
          message: "Invalid request: output.summary is too long (maximum is 65535 characters).",
        });
      state.checkRuns.push(run);
      return send(res, 201, checkRunJson(run));
    }
    if ((m = /^\/check-runs\/(\d+)$/.exec(path)) && call.method === "PATCH") {
      const run = state.checkRuns.find((r) => r.id === Number(m![1]));
      if (!run) return notFound(res);
      Object.assign(run, {
        ...(json.status ? { status: String(json.status) } : {}),
        ...(json.conclusion ? { conclusion: String(json.conclusion) } : {}),
        ...(json.output ? { output: json.output } : {}),
      });
      return send(res, 200, checkRunJson(run));
    }
    if ((m = /^\/commits\/([^/]+)\/check-runs$/.exec(path)) && call.method === "GET") {
      const name = url.searchParams.get("check_name");
      const latest = url.searchParams.get("filter") !== "all";
      let runs = state.checkRuns.filter((r) => r.head_sha === decodeURIComponent(m![1]) && (!name || r.name === name));
      if (latest) runs = runs.filter((r) => !runs.some((o) => o.name === r.name && o.id > r.id));
      const perPage = Math.min(Number(url.searchParams.get("per_page") ?? 30), maxPerPage);
      const pageNo = Math.max(1, Number(url.searchParams.get("page") ?? 1));
      const list = [...runs].sort((a, b) => b.id - a.id);
      const last = Math.max(1, Math.ceil(list.length / perPage));
      const next = new URL(url.toString());
      next.searchParams.set("page", String(pageNo + 1));
      next.searchParams.set("per_page", String(perPage));
      return send(
        res,
        200,
        {
          total_count: list.length,
          check_runs: list.slice((pageNo - 1) * perPage, pageNo * perPage).map(checkRunJson),
        },
        pageNo < last ? { link: `<${next.toString()}>; rel="next"` } : {},
      );
    }
    const publicKey = {
      key_id: publicKeyId,
      key: sodium.to_base64(keyPair.publicKey, sodium.base64_variants.ORIGINAL),
    };
    if (path === "/actions/secrets/public-key" && call.method === "GET") return send(res, 200, publicKey);
    if ((m = /^\/environments\/([^/]+)\/secrets\/public-key$/.exec(path)) && call.method === "GET")
      return send(res, 200, publicKey);
    if ((m = /^\/actions\/secrets\/([A-Za-z0-9_]+)$/.exec(path)) && call.method === "PUT")
      return putSecret(res, `repo:${m[1]}`, json);
    if ((m = /^\/environments\/([^/]+)\/secrets\/([A-Za-z0-9_]+)$/.exec(path)) && call.method === "PUT") {
      return putSecret(res, `env:${decodeURIComponent(m[1])}:${m[2]}`, json);
    }
    return notFound(res);
  }

  function putSecret(res: ServerResponse, key: string, json: Record<string, unknown>): void {
    if (typeof json.encrypted_value !== "string" || json.key_id !== publicKeyId) {
      return send(res, 422, { message: `Invalid request: encrypted_value and key_id "${publicKeyId}" are required.` });
    }
    const existed = state.secrets.has(key);
    state.secrets.set(key, { encrypted_value: json.encrypted_value, key_id: json.key_id });
    send(res, existed ? 204 : 201, existed ? undefined : {});
  }

  /** GitHub-style paging: `per_page` (capped), `page`, and a Link header with next/last. */
  function page(res: ServerResponse, url: URL, items: unknown[]): void {
    const perPage = Math.min(Number(url.searchParams.get("per_page") ?? 30), maxPerPage);
    const pageNo = Math.max(1, Number(url.searchParams.get("page") ?? 1));
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (n: number) => {
      const u = new URL(url.toString());
      u.searchParams.set("page", String(n));
      u.searchParams.set("per_page", String(perPage));
      return u.toString();
    };
    const links: string[] = [];
    if (pageNo < last) links.push(`<${link(pageNo + 1)}>; rel="next"`, `<${link(last)}>; rel="last"`);
    if (pageNo > 1) links.push(`<${link(1)}>; rel="first"`, `<${link(pageNo - 1)}>; rel="prev"`);
    send(
      res,
      200,
      items.slice((pageNo - 1) * perPage, pageNo * perPage),
      links.length ? { link: links.join(", ") } : {},
    );
  }

  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    get url() {
      return base;
    },
    owner,
    repo,
    ...state,
    publicKeyId,
    addPullRequest(title = "A change") {
      return addIssue({ title, body: "", isPullRequest: true }).number;
    },
    addComment,
    addIssue,
    failNext(method, pathPrefix, status, message) {
      failures.push({
        method,
        pathPrefix: pathPrefix.startsWith("/repos/") ? pathPrefix : `/repos/${owner}/${repo}${pathPrefix}`,
        status,
        message,
      });
    },
    decryptSecret(name, environment) {
      const stored = state.secrets.get(environment ? `env:${environment}:${name}` : `repo:${name}`);
      if (!stored) return undefined;
      const sealed = sodium.from_base64(stored.encrypted_value, sodium.base64_variants.ORIGINAL);
      return sodium.to_string(sodium.crypto_box_seal_open(sealed, keyPair.publicKey, keyPair.privateKey));
    },
    writes() {
      return state.calls.filter((c) => c.method !== "GET");
    },
    pulls,
    seedBranch(branch, files) {
      const tree = putTree(new Map(Object.entries(files).map(([p, text]) => [p, putBlob(text)])));
      const sha = putCommit(tree, [], `seed ${branch}`);
      git.refs.set(`heads/${branch}`, sha);
      return sha;
    },
    branchFiles(branch) {
      const sha = git.refs.get(`heads/${branch}`);
      if (!sha) return undefined;
      const tree = git.trees.get(git.commits.get(sha)!.tree)!;
      return Object.fromEntries([...tree].map(([p, blob]) => [p, git.blobs.get(blob)!]));
    },
    close() {
      return new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      });
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => ok(Buffer.concat(chunks).toString("utf8")));
    req.on("error", fail);
  });
}

function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

function notFound(res: ServerResponse): void {
  send(res, 404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
}

// ---------------------------------------------------------------------------------------------
// Hand-built documents for the GitHub tests (the command functions are faked in those tests).

/** A plan creating `count` UDFs, each with a long-ish source so many of them overflow a comment. */
export function planCreatingUdfs(count: number, project = "listings", target = "default", bodyChars = 200): Plan {
  const actions: PlannedAction[] = Array.from({ length: count }, (_, i) => {
    const slug = `loader_${String(i).padStart(5, "0")}`;
    return {
      address: `udf.sales/${slug}`,
      kind: "Udf",
      action: "update",
      id: `udf_${i}`,
      fields: [
        { field: "code", action: "update", secret: false, from: "x".repeat(bodyChars), to: "y".repeat(bodyChars) },
      ],
      notes: [],
      source: { file: `canvases/sales/${slug}.py`, line: 1, column: 1, path: "" },
    };
  });
  return {
    version: 1,
    project,
    target,
    actions,
    summary: {
      create: 0,
      adopt: 0,
      update: count,
      rename: 0,
      replace: 0,
      delete: 0,
      share: 0,
      unshare: 0,
      rotate: 0,
      forget: 0,
    },
    orphans: [],
    unmanaged: [],
    blocks: [],
    warnings: [],
  };
}

/** A drift report with one changed object per address; the fingerprint is the sorted addresses. */
export function driftOf(addresses: string[], project = "listings", target = "prod"): DriftReport {
  const items = [...addresses].sort().map((address) => ({
    address,
    kind: "Canvas" as const,
    class: "changed" as const,
    id: `cv_${address}`,
    fields: [{ field: "description", action: "update" as const, secret: false, from: "old", to: "new" }],
  }));
  return {
    version: 1,
    project,
    target,
    drift: items.length > 0,
    items,
    counts: { changed: items.length, missing: 0, orphaned: 0, unmanaged: 0, pending: 0 },
    fingerprint: items.length > 0 ? `fp-${items.map((i) => i.address).join("+")}` : "none",
  };
}
