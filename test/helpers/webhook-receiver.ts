/** A local webhook receiver for `notify:` tests: records each POST's JSON body; `hang` never answers. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface WebhookReceiver {
  url: string;
  /** Parsed bodies, in arrival order. */
  received: Record<string, unknown>[];
  /** Requests seen, answered or not. */
  attempts: () => number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(mode: "ok" | "hang" | "fail" = "ok"): Promise<WebhookReceiver> {
  const received: Record<string, unknown>[] = [];
  const hanging: ServerResponse[] = [];
  let attempts = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    attempts++;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (mode === "hang") return void hanging.push(res);
      if (mode === "fail") return void res.writeHead(503).end();
      received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/T000/secret-path`,
    received,
    attempts: () => attempts,
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
