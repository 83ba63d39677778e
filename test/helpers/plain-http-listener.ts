/**
 * A platform reached over plain http on this machine's network address (not the loopback), as an
 * eavesdropper on the network sees it: it records every request's Authorization header and answers
 * 401. `url` is undefined when the machine has no network address other than the loopback.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";

export interface PlainHttpListener {
  /** `http://<non-loopback address>:<port>/v1`, or undefined when there is no such address. */
  url?: string;
  /** The Authorization header of every request received ("" when none). */
  seen: string[];
  close(): Promise<void>;
}

/** The first IPv4 address of a network interface that is not the loopback. */
export function networkAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  return undefined;
}

export async function startPlainHttpListener(): Promise<PlainHttpListener> {
  const address = networkAddress();
  const seen: string[] = [];
  if (!address) return { seen, close: async () => {} };
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization ?? "");
    res.writeHead(401, { "content-type": "application/json" });
    res.end(JSON.stringify({ detail: "unauthorized" }));
  });
  await new Promise<void>((ok) => server.listen(0, address, ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}/v1`,
    seen,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
