// Preloaded (`node --require bench/process-stats.cjs`) into the CLI process the bench measures: counts
// the HTTP requests it sends (undici's diagnostics channel) by route, notes the largest answer
// (its Content-Length) and its route, and writes them with the process's peak RSS and CPU time to
// the file named by BENCH_STATS_FILE when the process exits, with the number of inventory writes
// (journal appends and whole writes of the local state).
const { subscribe } = require("node:diagnostics_channel");
const { writeFileSync } = require("node:fs");

const routes = {};
const routeOf = (request) => {
  const path = String(request.path)
    .split("?")[0]
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "{id}");
  return `${request.method} ${path.replace(/^.*?\/v1\//, "/")}`;
};
subscribe("undici:request:create", ({ request }) => {
  const route = routeOf(request);
  routes[route] = (routes[route] ?? 0) + 1;
});
let largestAnswer = { bytes: 0, route: "" };
subscribe("undici:request:headers", ({ request, response }) => {
  const raw = response.headers ?? [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (String(raw[i]).toLowerCase() !== "content-length") continue;
    const bytes = Number(String(raw[i + 1]));
    if (bytes > largestAnswer.bytes) largestAnswer = { bytes, route: routeOf(request) };
  }
});
// Inventory writes: appends to a journal (writeSync on its descriptor) and whole writes (renames onto inventory.json).
const fs = require("node:fs");
const fsp = require("node:fs/promises");
const journalFds = new Set();
let inventoryWrites = 0;
const { openSync, writeSync, closeSync } = fs;
fs.openSync = function (file, ...rest) {
  const fd = openSync.call(this, file, ...rest);
  if (String(file).endsWith("inventory.journal")) journalFds.add(fd);
  return fd;
};
fs.closeSync = function (fd, ...rest) {
  journalFds.delete(fd);
  return closeSync.call(this, fd, ...rest);
};
fs.writeSync = function (fd, ...rest) {
  if (journalFds.has(fd)) inventoryWrites++;
  return writeSync.call(this, fd, ...rest);
};
const { rename } = fsp;
fsp.rename = function (from, to, ...rest) {
  if (String(to).endsWith("inventory.json")) inventoryWrites++;
  return rename.call(this, from, to, ...rest);
};

process.on("exit", () => {
  const file = process.env.BENCH_STATS_FILE;
  if (!file) return;
  const requests = Object.values(routes).reduce((a, b) => a + b, 0);
  const usage = process.resourceUsage();
  const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
  writeFileSync(
    file,
    JSON.stringify({ requests, routes, largestAnswer, inventoryWrites, maxRssBytes: usage.maxRSS * 1024, cpuMs }),
  );
});
