/**
 * A stand-in for the platform that answers every request 500 and counts them: for the tests of
 * input the loader must refuse before any request (a pull request's hostile repository).
 * @example
 * const platform = useCountingPlatform();
 * // ... run validate or plan with SVC_BASE_URL: platform.url
 * expect(platform.requests).toBe(0);
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

export interface CountingPlatform {
  /** Its base URL, `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  /** Requests received since the start or the last {@link CountingPlatform.reset}. */
  readonly requests: number;
  reset(): void;
}

/** Starts the stand-in before the file's tests and stops it after them. */
export function useCountingPlatform(): CountingPlatform {
  let server: Server;
  let url = "";
  let requests = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.writeHead(500).end("{}");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  return {
    get url() {
      return url;
    },
    get requests() {
      return requests;
    },
    reset: () => void (requests = 0),
  };
}
