// Preloaded (`node --require bench/process-stats.cjs`) into the CLI process the bench measures: counts
// the HTTP requests it sends (undici's diagnostics channel) by route, and writes them with the
// process's peak RSS and CPU time to the file named by BENCH_STATS_FILE when the process exits.
const { subscribe } = require("node:diagnostics_channel");
const { writeFileSync } = require("node:fs");

const routes = {};
subscribe("undici:request:create", ({ request }) => {
  const path = String(request.path).split("?")[0].replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "{id}");
  const route = `${request.method} ${path.replace(/^.*?\/v1\//, "/")}`;
  routes[route] = (routes[route] ?? 0) + 1;
});
process.on("exit", () => {
  const file = process.env.BENCH_STATS_FILE;
  if (!file) return;
  const requests = Object.values(routes).reduce((a, b) => a + b, 0);
  const usage = process.resourceUsage();
  const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
  writeFileSync(file, JSON.stringify({ requests, routes, maxRssBytes: usage.maxRSS * 1024, cpuMs }));
});
