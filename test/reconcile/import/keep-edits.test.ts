/** The in-place edits of import --keep: each leaves valid YAML whose value is the platform's, and every other byte as it was. */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { setTopLevelKey } from "../../../src/reconcile/import/keep-edits";

const FILE = "canvases/ops/canvas.yaml";
const BEFORE =
  "# Ops canvas\naccess_scope: team # who sees it\ndashboard_body: Freshness of the pipeline\npreview_image_url: https://example.com/a.png\n";

function set(text: string | undefined, key: string, value: unknown): string {
  const r = setTopLevelKey(FILE, text, key, value);
  if ("problem" in r) throw new Error(r.problem);
  return r.text;
}

describe("setting one top-level key in place", () => {
  it("GIVEN a multi-line value from the platform THEN the file holds it as an indented block scalar, and the rest is unchanged", () => {
    const value = "alpha\n  indented # not a comment\n'quoted' and \"double\"\n";
    const after = set(BEFORE, "dashboard_body", value);
    expect(parse(after)).toEqual({
      access_scope: "team",
      dashboard_body: value,
      preview_image_url: "https://example.com/a.png",
    });
    expect(after.startsWith("# Ops canvas\naccess_scope: team # who sees it\ndashboard_body: |")).toBe(true);
    expect(after.endsWith("preview_image_url: https://example.com/a.png\n")).toBe(true);
  });

  it("GIVEN a block scalar in the file and a one-line value THEN the block is replaced whole", () => {
    const block =
      "access_scope: team\ndashboard_body: >\n  folded\n  text\npreview_image_url: https://example.com/a.png\n";
    const after = set(block, "dashboard_body", "one line");
    expect(after).toBe("access_scope: team\ndashboard_body: one line\npreview_image_url: https://example.com/a.png\n");
  });

  it("GIVEN a multi-line value for an absent key THEN it is appended as a valid block", () => {
    const after = set("access_scope: team\n", "dashboard_body", "a\nb\n");
    expect(parse(after)).toEqual({ access_scope: "team", dashboard_body: "a\nb\n" });
  });

  it("GIVEN a field the platform cleared THEN its line goes when present, and nothing changes when absent", () => {
    expect(set(BEFORE, "preview_image_url", null)).toBe(
      "# Ops canvas\naccess_scope: team # who sees it\ndashboard_body: Freshness of the pipeline\n",
    );
    expect(set("access_scope: team\n", "preview_image_url", null)).toBe("access_scope: team\n");
    expect(set(undefined, "preview_image_url", undefined)).toBe("");
  });

  it("GIVEN a value holding ${ THEN it is written as a literal ($${), not as a reference", () => {
    expect(parse(set(BEFORE, "dashboard_body", "cost ${x}"))).toMatchObject({ dashboard_body: "cost $${x}" });
  });
});
