// The listing floor's bare client, run as its own process (`node bench/bare-listing.mjs`, the
// emulator's base URL and token in BENCH_BASE_URL and BENCH_TOKEN): the requests a plan's
// observation makes (the team's lite canvas listing, then each canvas by id, READS_IN_FLIGHT at a
// time on as many connections), answers read as text and only the lite listing parsed for the ids.
// Prints {ms, largestBytes}: the time of the requests alone (from the first request to the last
// answer, without Node's start or undici's load) and the largest answer.
import { Agent, request } from "undici";

const base = process.env.BENCH_BASE_URL;
const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? 8);
const dispatcher = new Agent({ connections: inFlight });
const headers = { authorization: `Bearer ${process.env.BENCH_TOKEN}` };
let largestBytes = 0;
const get = async (path) => {
  const r = await request(`${base}${path}`, { dispatcher, headers });
  const text = await r.body.text();
  if (r.statusCode >= 300) throw new Error(`GET ${path}: ${r.statusCode} ${text.slice(0, 200)}`);
  largestBytes = Math.max(largestBytes, Buffer.byteLength(text));
  return text;
};

const started = performance.now();
const ids = JSON.parse(await get("/collection/exec-env/lite")).map((c) => c.id);
let next = 0;
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (next < ids.length) await get(`/collection/by-id/${ids[next++]}`);
  }),
);
const ms = performance.now() - started;
await dispatcher.close();
process.stdout.write(JSON.stringify({ ms, largestBytes }));
