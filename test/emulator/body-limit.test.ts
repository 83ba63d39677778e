/**
 * Bodies over a route's limit are answered with 413, which clients only see when the emulator
 * reads the body before answering. The emulator runs as its own process, as users run it: in the
 * test's own process the race between answer and upload goes differently.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type SvcClient } from "../../src/api/client";
import { failure } from "../helpers/emulator";

const CLI = join(__dirname, "../../dist/cli/main.js");
const MiB = 1024 * 1024;

let child: ChildProcess;
let info: Record<string, string>;
let client: SvcClient;

beforeAll(async () => {
  child = spawn(process.execPath, [CLI, "emulator", "--import-max-bytes", String(10 * MiB)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  info = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", (line) => resolve(JSON.parse(line)));
    child.once("exit", (code) => reject(new Error(`emulator exited ${code}`)));
  });
  client = createClient({ baseUrl: info.base_url, token: info.user_token, retry: { maxAttempts: 1 } });
});
afterAll(async () => {
  await client?.close();
  child?.kill("SIGTERM");
});

const importUrl = (id: string) => `${info.base_url}/collection/by-id/${id}/import-toml`;
function upload(id: string, bytes: number) {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(bytes)]), "big.zip");
  return fetch(importUrl(id), { method: "POST", headers: { authorization: `Bearer ${info.user_token}` }, body: form });
}

describe("import-toml over the 10 MiB limit (emulator in its own process)", () => {
  it("GIVEN an 11 MiB archive WHEN imported through the project's client THEN it fails with 413 payload_too_large and the canvas keeps its UDFs", async () => {
    const body = JSON.stringify({
      name: "kept",
      type: "geopandas_v2",
      entrypoint: "udf",
      code: "def udf():\n    return 1\n",
      headers: [],
      metadata: {},
      parameters: {},
      table_schema: null,
      original_headers: null,
    });
    const c = await client.canvases.create({ name: "too_big", udfs: [{ slug: "kept", udf_body: body }] });
    const e = await failure(client.canvases.importToml(c.id, new Uint8Array(11 * MiB).fill(0x61), "big.zip"));
    expect(e).toMatchObject({ status: 413, code: "payload_too_large" });
    expect((await client.canvases.getById(c.id)).udfs.map((u) => u.slug)).toEqual(["kept"]);
  });

  it("GIVEN an 11 MiB archive WHEN posted with Node's fetch, as scripts do THEN the answer is 413 with its detail, not a broken pipe", async () => {
    const c = await client.canvases.create({ name: "too_big_fetch" });
    for (let i = 0; i < 3; i++) {
      const res = await upload(c.id, 11 * MiB);
      expect(res.status).toBe(413);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/^Request body too large/);
    }
  });

  it("GIVEN a body over four times the limit WHEN posted THEN the emulator stops reading and closes the connection, and keeps serving", async () => {
    const c = await client.canvases.create({ name: "far_too_big" });
    const e = await failure(upload(c.id, 45 * MiB));
    expect(e).toBeInstanceOf(TypeError);
    expect((await client.canvases.getById(c.id)).name).toBe("far_too_big");
  });
});
