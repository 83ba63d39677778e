// The plan as a picture at scale: for a plan of N changes (UDFs spread over canvases, cronjobs
// referring to some of them), the time to build its Mermaid diagram (grouping included) and to
// render the whole pull-request Markdown, beside a floor measured in the same run: one pass over the
// plan (`JSON.stringify`). Also the diagram's node count and size, which must stay bounded.
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const dist = (m) => require(join(import.meta.dirname, "../dist", m));
const { renderPlanMarkdown } = dist("reconcile/render/plan-markdown.js");
const { planGraph } = dist("reconcile/render/change-graph.js");
const { toMermaid } = dist("reconcile/render/graph-text.js");

function planOf(n) {
  const actions = [];
  for (let i = 0; i < n; i++) {
    const canvas = `c${i % 7}`;
    const action = i % 10 === 0 ? "delete" : i % 3 === 0 ? "create" : "update";
    actions.push({
      address: `udf.${canvas}/f_${i}`,
      kind: "Udf",
      action,
      fields: [],
      notes: [],
      references: [`canvas.${canvas}`],
    });
  }
  for (let i = 0; i < n / 20; i++)
    actions.push({
      address: `cronjob.job_${i}`,
      kind: "Cronjob",
      action: "create",
      fields: [],
      notes: [],
      references: [`udf.c${(i * 7) % 7}/f_${i * 7}`],
    });
  const summary = { create: 0, adopt: 0, update: 0, rename: 0, replace: 0, delete: 0, share: 0, unshare: 0, rotate: 0 };
  for (const a of actions) summary[a.action]++;
  return {
    version: 1,
    project: "bench",
    target: "default",
    actions,
    summary,
    orphans: [],
    unmanaged: [],
    blocks: [],
    warnings: [],
  };
}

function medianMs(fn, runs = 5) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

/** Prints, for each N, the diagram's and the Markdown's render times beside the floor, and the diagram's size. */
export async function benchPlanPicture(line) {
  for (const n of [2000, 10000]) {
    const plan = planOf(n);
    const graph = planGraph(plan);
    const mermaid = toMermaid(graph);
    line(`N=${n}: diagram (graph + Mermaid), ms`, medianMs(() => toMermaid(planGraph(plan))).toFixed(1), "");
    line("  whole plan Markdown with diagram, ms", medianMs(() => renderPlanMarkdown(plan)).toFixed(1), "");
    line("  floor: JSON.stringify of the plan, ms", medianMs(() => JSON.stringify(plan)).toFixed(1), "");
    line("  diagram nodes", graph.nodes.length, "<= 60");
    line("  diagram characters", mermaid.length, "< 10,000");
    line("  Markdown characters", renderPlanMarkdown(plan).length, "<= 65,000");
  }
}
