import { describe, expect, it } from "vitest";
import type { Plan, PlannedAction } from "../../../src/reconcile/plan/plan-model";
import { driftGraph, MAX_NODES, planGraph } from "../../../src/reconcile/render/change-graph";
import { toDot, toMermaid } from "../../../src/reconcile/render/graph-text";
import { renderDriftMarkdown } from "../../../src/reconcile/render/drift-markdown";
import { renderPlanMarkdown } from "../../../src/reconcile/render/plan-markdown";
import { mermaidBlocks, parseMermaid } from "../../helpers/mermaid";
import { emptyPlan, sampleDrift, samplePlan } from "./fixtures";

const action = (
  address: string,
  kind: PlannedAction["kind"],
  act: PlannedAction["action"],
  references?: string[],
): PlannedAction => ({
  address,
  kind,
  action: act,
  fields: [],
  notes: [],
  ...(references ? { references } : {}),
});

function planOf(actions: PlannedAction[], more: Partial<Plan> = {}): Plan {
  const summary = { ...emptyPlan().summary };
  for (const a of actions) summary[a.action]++;
  return { ...emptyPlan(), actions, summary, ...more };
}

/** A canvas deleted with its UDF and the cronjob running it, one UDF created on another canvas. */
function deletionPlan(): Plan {
  return planOf(
    [action("udf.maps/tiles", "Udf", "create", ["canvas.maps"]), action("canvas.old", "Canvas", "delete")],
    {
      cascade: [
        { address: "udf.old/loader", kind: "Udf", id: "u1", by: "canvas.old", effect: "deleted", managed: true },
        {
          address: "cronjob.nightly",
          kind: "Cronjob",
          id: "c1",
          by: "udf.old/loader",
          effect: "broken",
          managed: false,
        },
      ],
    },
  );
}

/** Names a hostile pull request or platform could hold, each trying to break out of the diagram. */
const HOSTILE = [
  'x"] --> evil["pwned',
  "```\n# Heading\n<img src=x onerror=alert(1)>",
  "<script>alert(1)</script>",
  'a]; click n1 call alert(1); %%{init: {"securityLevel": "loose"}}%%',
  "style n1 fill:#f00;",
  "classDef create fill:#000; #quot;",
  "@octocat [link](https://evil.example) #12",
  "end\nsubgraph x\n",
  "\u202eevil\u0000\u0007",
  "名前 ✓ 🚀",
];

describe("the plan as a picture", () => {
  it("GIVEN a plan that deletes a canvas WHEN drawn THEN every object is a node styled by what happens to it, with its references and what the deletion takes along", async () => {
    const g = planGraph(deletionPlan());
    const byTitle = new Map(g.nodes.map((n) => [n.title, n]));
    expect([...byTitle.keys()].sort()).toEqual([
      "canvas.maps",
      "canvas.old",
      "cronjob.nightly",
      "udf.maps/tiles",
      "udf.old/loader",
    ]);
    expect(byTitle.get("canvas.old")!.style).toBe("delete");
    expect(byTitle.get("udf.old/loader")!.style).toBe("cascade");
    expect(byTitle.get("cronjob.nightly")!.style).toBe("broken");
    expect(byTitle.get("cronjob.nightly")!.caption).toBe("broken with udf.old/loader (not managed)");
    expect(byTitle.get("udf.maps/tiles")!.style).toBe("create");
    expect(byTitle.get("canvas.maps")!.style).toBe("context");
    const id = (t: string) => byTitle.get(t)!.id;
    expect(g.edges).toContainEqual({ from: id("udf.maps/tiles"), to: id("canvas.maps"), type: "ref" });
    expect(g.edges).toContainEqual({ from: id("udf.old/loader"), to: id("canvas.old"), type: "takes" });
    expect(g.edges).toContainEqual({ from: id("cronjob.nightly"), to: id("udf.old/loader"), type: "takes" });
    const text = toMermaid(g);
    expect(await parseMermaid(text)).toBe("flowchart-v2");
    expect(text).toContain("classDef delete ");
    expect(text).toContain("classDef cascade ");
    expect(text).toMatch(/n\d+ -\. taken by \.-> n\d+/);
  });

  it("GIVEN a plan WHEN rendered as Markdown THEN it holds one Mermaid diagram that a real Mermaid parser accepts", async () => {
    const md = renderPlanMarkdown(samplePlan());
    const blocks = mermaidBlocks(md);
    expect(blocks).toHaveLength(1);
    await parseMermaid(blocks[0]!);
    expect(blocks[0]).toContain('"udf.sales/loader<br/>update"');
    // The diagram comes before the list of actions.
    expect(md.indexOf("```mermaid")).toBeLessThan(md.indexOf("#### - delete"));
  });

  it("GIVEN a drift report WHEN rendered as Markdown THEN its diagram parses and shows each class", async () => {
    const md = renderDriftMarkdown(sampleDrift());
    const [block] = mermaidBlocks(md);
    await parseMermaid(block!);
    for (const c of ["missing", "orphaned", "unmanaged", "pending"]) expect(block).toContain(`classDef ${c} `);
    expect(driftGraph(sampleDrift()).nodes).toHaveLength(7);
  });

  it("GIVEN a plan without changes WHEN rendered THEN there is no diagram", () => {
    expect(renderPlanMarkdown(emptyPlan())).not.toContain("mermaid");
  });

  it("GIVEN names made to break out of the diagram WHEN drawn THEN each stays a label: the diagram parses, the fence holds, no HTML or link survives", async () => {
    for (const name of HOSTILE) {
      const plan = planOf(
        [action(`canvas.${name}`, "Canvas", "update"), action(`udf.${name}/x`, "Udf", "create", [`canvas.${name}`])],
        {
          cascade: [
            { address: `udf.${name}/y`, kind: "Udf", id: "u", by: `canvas.${name}`, effect: "deleted", managed: false },
          ],
        },
      );
      const md = renderPlanMarkdown({ ...plan, project: name });
      const blocks = mermaidBlocks(md);
      expect(blocks, name).toHaveLength(1);
      const block = blocks[0]!;
      await expect(parseMermaid(block), name).resolves.toBe("flowchart-v2");
      // Only the ids the writer made: three objects, no node the name declared.
      expect(new Set(block.match(/\bn\d+\b/g)), name).toEqual(new Set(["n1", "n2", "n3"]));
      expect(block, name).not.toMatch(/`|<(?!br\/>)/);
      // Every line is one the writer makes; names only inside quoted labels, as plain characters and entities.
      const shapes = [
        /^flowchart LR$/,
        /^ {2}n\d+\["[A-Za-z0-9 ._/*#;-]*<br\/>[A-Za-z0-9 ._/*#;-]*"\]$/,
        /^ {2}n\d+ (-->|-\. taken by \.->) n\d+$/,
        /^ {2}classDef [a-z]+ fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6},color:#[0-9a-f]{6}(,stroke-dasharray:5 3)?$/,
        /^ {2}class n\d+(,n\d+)* [a-z]+$/,
      ];
      for (const line of block.split("\n"))
        expect(
          shapes.some((re) => re.test(line)),
          `${name}: ${line}`,
        ).toBe(true);
    }
  });

  it("GIVEN names made to break out WHEN drawn as DOT THEN every label is one quoted string", () => {
    for (const name of HOSTILE) {
      const dot = toDot(planGraph(planOf([action(`canvas.${name}`, "Canvas", "update")])));
      const label = dot.split("\n").find((l) => l.startsWith("  n1 "))!;
      expect(label, name).toMatch(
        /^ {2}n1 \[label="(?:[^"\\\n]|\\.)*", style="filled", fillcolor="#[0-9a-f]{6}", color="#[0-9a-f]{6}"\];$/,
      );
      expect(
        dot.split("\n").filter((l) => l.trim() === "}"),
        name,
      ).toHaveLength(1);
    }
  });

  it(`GIVEN 2,000 changes WHEN drawn THEN at most ${MAX_NODES} nodes, the largest groups collapsed with their count, within the comment budget, and it parses`, async () => {
    const actions: PlannedAction[] = [];
    for (let i = 0; i < 2000; i++) {
      const canvas = `c${i % 5}`;
      const act = i % 10 === 0 ? "delete" : i % 3 === 0 ? "create" : "update";
      actions.push(action(`udf.${canvas}/f_${String(i).padStart(4, "0")}`, "Udf", act, [`canvas.${canvas}`]));
    }
    for (let i = 0; i < 20; i++)
      actions.push(
        action(`cronjob.job_${i}`, "Cronjob", "create", [
          `udf.c${(i * 30 + 1) % 5}/f_${String(i * 30 + 1).padStart(4, "0")}`,
        ]),
      );
    const plan = planOf(actions);
    const g = planGraph(plan);
    expect(g.nodes.length).toBeLessThanOrEqual(MAX_NODES);
    expect(g.objects).toBe(2025);
    expect(g.nodes.reduce((n, x) => n + x.count, 0)).toBe(2025);
    // The canvases the groups refer to keep a box each, so the picture still says which canvas changes how.
    expect(
      g.nodes
        .filter((n) => n.style === "context")
        .map((n) => n.title)
        .sort(),
    ).toEqual(["canvas.c0", "canvas.c1", "canvas.c2", "canvas.c3", "canvas.c4"]);
    const group = g.nodes.find((n) => n.count > 1 && n.style === "update")!;
    expect(group.title).toMatch(/^udf\.c\d\/\*$/);
    expect(group.caption).toMatch(/^\d+ updated$/);
    const md = renderPlanMarkdown(plan);
    expect(md.length).toBeLessThanOrEqual(65_000);
    const [block] = mermaidBlocks(md);
    expect(block!.length).toBeLessThan(10_000);
    await parseMermaid(block!);
    expect(md).toMatch(/[\d,]+ of 2,025 objects are drawn in groups, with their count\./);
  });

  it("GIVEN a budget too small for the diagram WHEN rendered THEN the diagram is left out rather than cut", () => {
    const md = renderPlanMarkdown(samplePlan(), { maxChars: 600 });
    expect(md.length).toBeLessThanOrEqual(600);
    expect(md).not.toContain("mermaid");
  });
});
