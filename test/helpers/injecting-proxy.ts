/**
 * A proxy in front of the emulator that answers chosen requests itself, as a hostile or broken
 * platform would (an error whose detail carries workflow commands and Markdown), or that lets
 * something else happen on the platform just before a chosen request goes through, as another
 * client racing the command would.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface InjectingProxy {
  url: string;
  /** Requests whose `METHOD path` (no query) matches are answered `status` with `{detail}`; others go through. */
  failWith(match: RegExp | undefined, detail?: string, status?: number): void;
  /** Requests whose `METHOD path` (no query) matches are answered 200 with `body` (JSON), as a lying platform would; undefined stops it. */
  answerWith(match: RegExp | undefined, body?: unknown): void;
  /** Before the `nth` request matching `match` (1-based) is forwarded, awaits `action`; once. */
  before(match: RegExp, nth: number, action: () => Promise<void>): void;
  close(): Promise<void>;
}

export async function startInjectingProxy(target: string): Promise<InjectingProxy> {
  const base = new URL(target);
  let rule: { match: RegExp; detail: string; status: number } | undefined;
  let race: { match: RegExp; left: number; action: () => Promise<void> } | undefined;
  let answer: { match: RegExp; body: unknown } | undefined;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    // Matched on the path below the base URL, without the query.
    const path = (req.url ?? "/").split("?")[0].slice(base.pathname.replace(/\/$/, "").length) || "/";
    if (race && race.match.test(`${req.method} ${path}`) && --race.left === 0) {
      const { action } = race;
      race = undefined;
      req.pause();
      await action();
    }
    if (answer && answer.match.test(`${req.method} ${path}`)) {
      const text = JSON.stringify(answer.body);
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) });
        res.end(text);
      });
      return;
    }
    if (rule && rule.match.test(`${req.method} ${path}`)) {
      req.resume();
      req.on("end", () => {
        res.writeHead(rule!.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ detail: rule!.detail }));
      });
      return;
    }
    const upstream = request(
      { host: base.hostname, port: base.port, method: req.method, path: req.url, headers: { ...req.headers, host: base.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${base.pathname.replace(/\/$/, "")}`,
    failWith: (match, detail = "", status = 400) => void (rule = match ? { match, detail, status } : undefined),
    answerWith: (match, body) => void (answer = match ? { match, body } : undefined),
    before: (match, nth, action) => void (race = { match, left: nth, action }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
