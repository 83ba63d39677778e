/**
 * The emulator's HTTP server: `{base_url}` at `/v1`, `{udf_base_url}` at `/udf`, and the
 * emulator's own signed storage URLs at `/_emulator`. Each request: faults → route → credentials →
 * body → handler in one SQLite transaction → answer (or, for a lost response, a dropped connection
 * after the commit).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { JSON_BODY_MAX_BYTES } from "../api/request-limits";
import { HttpError } from "./http-error";
import type { FaultInjector } from "./faults";
import { authorize, parseAuthorization } from "./principal";
import {
  refuseRepeatedParameters,
  Reply,
  type EmulatorEnv,
  type RequestContext,
  type RouteDef,
  type UploadedFile,
} from "./route";
import { Router } from "./router";

const JSON_LIMIT = JSON_BODY_MAX_BYTES;
const RAW_LIMIT = 512 * 1024 * 1024;

export interface ServerHandle {
  server: Server;
  origin: string;
  close(): Promise<void>;
}

export function createRouter(routes: RouteDef[]): Router {
  const router = new Router();
  for (const r of routes) router.add(r);
  return router;
}

export async function listen(
  env: EmulatorEnv,
  router: Router,
  opts: { host: string; port: number; faults: () => FaultInjector | undefined },
): Promise<ServerHandle> {
  const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    handle(env, router, opts.faults(), req, res).catch((err) => {
      env.log(`internal error: ${(err as Error)?.stack ?? err}`);
      if (!res.headersSent) send(res, 500, { detail: "Internal Server Error" });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  const origin = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`;
  return {
    server,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function splitHost(pathname: string): { host: "api" | "udf" | "internal"; path: string } | undefined {
  if (pathname === "/v1" || pathname.startsWith("/v1/")) return { host: "api", path: pathname.slice(3) || "/" };
  if (pathname === "/udf" || pathname.startsWith("/udf/")) return { host: "udf", path: pathname.slice(4) || "/" };
  if (pathname.startsWith("/_emulator/")) return { host: "internal", path: pathname.slice(10) };
  return undefined;
}

async function handle(
  env: EmulatorEnv,
  router: Router,
  faults: FaultInjector | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? "GET";
  const rawUrl = req.url ?? "/";
  const qIndex = rawUrl.indexOf("?");
  const pathname = qIndex >= 0 ? rawUrl.slice(0, qIndex) : rawUrl;
  const query = new URLSearchParams(qIndex >= 0 ? rawUrl.slice(qIndex + 1) : "");
  const target = splitHost(pathname);

  let lost = false;
  if (faults && target?.host === "api") {
    const delay = faults.latency();
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    const action = faults.decide(method, target.path);
    if (action.kind === "reset") {
      req.socket.destroy();
      return;
    }
    if (action.kind === "status") {
      await drain(req);
      const headers: Record<string, string> =
        action.retryAfter !== undefined ? { "retry-after": String(action.retryAfter) } : {};
      send(res, action.status, { detail: action.status === 429 ? "Too Many Requests" : "Injected fault" }, headers);
      return;
    }
    lost = action.kind === "lost";
  }

  if (!target) {
    await drain(req);
    return send(res, 404, { detail: "Not Found" });
  }
  const match = router.match(target.host, method, target.path);
  if (match.kind !== "found") {
    await drain(req);
    if (match.kind === "method_not_allowed")
      return send(res, 405, { detail: "Method Not Allowed" }, { allow: match.allowed.join(", ") });
    return send(res, 404, { detail: "Not Found" });
  }
  const def = match.def;

  try {
    const auth = parseAuthorization(headerValue(req.headers.authorization));
    const bodyKind = def.body ?? (method === "POST" || method === "PUT" ? "json" : "none");
    const limit =
      bodyKind === "json" ? JSON_LIMIT : bodyKind === "multipart" ? env.importMaxBytes + 1024 * 1024 : RAW_LIMIT;
    const rawBody = await readBody(req, limit);
    let jsonBody: unknown;
    if (bodyKind === "json" && rawBody.length > 0) {
      try {
        jsonBody = JSON.parse(rawBody.toString("utf8"));
      } catch {
        throw new HttpError(422, [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }]);
      }
    }
    let form: FormData | undefined;
    const files = new Map<string, UploadedFile>();
    if (bodyKind === "multipart") {
      form = await parseMultipart(rawBody, headerValue(req.headers["content-type"]));
      // Handlers are synchronous (they run inside a transaction), so file parts are read here.
      for (const [field, value] of form.entries()) {
        if (typeof value !== "string" && !files.has(field)) {
          files.set(field, {
            filename: value.name,
            contentType: value.type,
            bytes: Buffer.from(await value.arrayBuffer()),
          });
        }
      }
    }

    const answer = env.store.tx(() => {
      const principal = authorize(def.scope, env.store, auth);
      refuseRepeatedParameters(query, def.repeatable);
      const ctx: RequestContext = {
        env,
        store: env.store,
        method,
        path: target.path,
        params: match.params,
        query,
        headers: req.headers,
        auth,
        principal,
        rawBody,
        jsonBody,
        form,
        files,
        now: () => env.clock.now(),
      };
      return def.handler(ctx);
    });
    // A handler may finish outside the transaction (reading files after its reads of the store).
    const reply = answer instanceof Promise ? await answer : answer;
    if (lost) {
      // The change is committed; the caller never hears of it.
      req.socket.destroy();
      return;
    }
    sendReply(res, reply);
  } catch (err) {
    if (err instanceof HttpError) {
      if (lost) {
        req.socket.destroy();
        return;
      }
      return send(res, err.status, { detail: err.detail }, err.headers);
    }
    throw err;
  }
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function sendReply(res: ServerResponse, reply: unknown): void {
  if (!(reply instanceof Reply)) return send(res, 200, reply === undefined ? null : reply);
  if (!reply.raw) return send(res, reply.status, reply.body, reply.headers);
  const body =
    reply.body === undefined
      ? undefined
      : typeof reply.body === "string"
        ? Buffer.from(reply.body)
        : (reply.body as Buffer);
  res.writeHead(reply.status, { ...reply.headers, "content-length": String(body?.length ?? 0) });
  res.end(body);
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

async function drain(req: IncomingMessage): Promise<void> {
  if (req.readableEnded) return;
  req.resume();
  await new Promise<void>((r) => {
    req.once("end", r);
    req.once("error", () => r());
    req.once("close", () => r());
  });
}

/**
 * A body over the limit is still read (and discarded) up to this many times the limit, so the
 * client, still uploading, receives the 413 instead of a reset connection. Above it the emulator
 * stops reading and closes: a client cannot make it read without end.
 */
const DRAIN_FACTOR = 4;

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const bound = limit * DRAIN_FACTOR;
  const declared = Number(req.headers["content-length"] ?? 0);
  const closing = (detail: string) => {
    req.socket.setTimeout(1000);
    return new HttpError(413, detail, { connection: "close" });
  };
  if (declared > bound) throw closing(`Request body too large: ${declared} bytes, at most ${limit} accepted`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > bound) throw closing(`Request body too large: more than ${limit} bytes`);
    if (size > limit) chunks.length = 0;
    else chunks.push(chunk as Buffer);
  }
  if (size > limit) throw new HttpError(413, `Request body too large: ${size} bytes, at most ${limit} accepted`);
  return Buffer.concat(chunks);
}

async function parseMultipart(body: Buffer, contentType: string | undefined): Promise<FormData> {
  if (!contentType?.toLowerCase().startsWith("multipart/form-data")) {
    throw new HttpError(422, [{ loc: ["body"], msg: "Expected multipart/form-data", type: "value_error" }]);
  }
  try {
    return await new Response(new Uint8Array(body), { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new HttpError(400, "Malformed multipart body");
  }
}
