/**
 * A proxy in front of the emulator that answers chosen requests itself, as a hostile or broken
 * platform would (an error whose detail carries workflow commands and Markdown), or that lets
 * something else happen on the platform just before a chosen request goes through, as another
 * client racing the command would, or that cuts an answer short as a gateway with a size or time
 * limit would. It records the size of every answer it forwards.
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
  /** The `nth` answer matching `match` (1-based) reaches the client cut to its first half, as a complete 200 answer (Content-Length of the half); once. */
  cut(match: RegExp, nth: number): void;
  /** Every answer forwarded so far: `METHOD path` (no query), status, and its body as text. */
  readonly answers: { request: string; status: number; body: string }[];
  close(): Promise<void>;
}

export async function startInjectingProxy(target: string): Promise<InjectingProxy> {
  const base = new URL(target);
  let rule: { match: RegExp; detail: string; status: number } | undefined;
  let race: { match: RegExp; left: number; action: () => Promise<void> } | undefined;
  let cutting: { match: RegExp; left: number } | undefined;
  const answers: InjectingProxy["answers"] = [];
  let answer: { match: RegExp; body: unknown } | undefined;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    // Matched on the path below the base URL, without the query.
    const path = (req.url ?? "/").split("?")[0].slice(base.pathname.replace(/\/$/, "").length) || "/";
    if (race?.match.test(`${req.method} ${path}`) && --race.left === 0) {
      const { action } = race;
      race = undefined;
      req.pause();
      await action();
    }
    if (answer?.match.test(`${req.method} ${path}`)) {
      const text = JSON.stringify(answer.body);
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) });
        res.end(text);
      });
      return;
    }
    if (rule?.match.test(`${req.method} ${path}`)) {
      req.resume();
      req.on("end", () => {
        res.writeHead(rule!.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ detail: rule!.detail }));
      });
      return;
    }
    const upstream = request(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: base.host },
      },
      (up) => {
        const chunks: Buffer[] = [];
        up.on("data", (c: Buffer) => chunks.push(c));
        up.on("end", () => {
          let body = Buffer.concat(chunks);
          answers.push({ request: `${req.method} ${path}`, status: up.statusCode ?? 502, body: body.toString("utf8") });
          if (cutting?.match.test(`${req.method} ${path}`) && --cutting.left === 0) {
            cutting = undefined;
            body = body.subarray(0, Math.floor(body.length / 2));
          }
          const { "content-length": _length, "transfer-encoding": _chunked, ...headers } = up.headers;
          res.writeHead(up.statusCode ?? 502, { ...headers, "content-length": String(body.length) });
          res.end(body);
        });
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
    cut: (match, nth) => void (cutting = { match, left: nth }),
    answers,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
