import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_DRIFT_LABEL, syncDriftIssue } from "../../src/github/drift-issue";
import { createGithubClient } from "../../src/github/github-client";
import { driftMarker } from "../../src/github/markers";
import { COMMENT_MAX_CHARS } from "../../src/github/pr-comment";
import type { PolicyResult } from "../../src/policy/model";
import type { DriftReport } from "../../src/reconcile/plan/plan-model";
import { driftReport } from "../../src/reconcile/plan/drift";
import type { PlanOutcome } from "../../src/reconcile/plan";
import { renderDriftMarkdown } from "../../src/reconcile/render";
import { driftOf, startFakeGithub, type FakeGithub } from "../helpers/fake-github";

let gh: FakeGithub;

beforeEach(async () => {
  gh = await startFakeGithub();
});
afterEach(async () => {
  await gh.close();
});

function sync(drift: DriftReport) {
  const octokit = createGithubClient({ token: "ghs_testtoken", baseUrl: gh.url, warn: () => {} });
  return syncDriftIssue(octokit, drift, {
    owner: gh.owner,
    repo: gh.repo,
    runUrl: "https://github.com/acme/infra/actions/runs/7",
    render: (maxChars) => renderDriftMarkdown(drift, { maxChars }),
  });
}

const issueComments = (n: number) => gh.comments.filter((c) => c.issueNumber === n).map((c) => c.body);

describe("drift issue", () => {
  it("opens, stays quiet on unchanged drift, updates on changed drift and closes when clean", async () => {
    // GIVEN drift appears
    const opened = await sync(driftOf(["canvas.sales"]));
    expect(opened.action).toBe("opened");
    const number = (opened as { number: number }).number;
    const issue = () => gh.issues.find((i) => i.number === number)!;
    expect(issue()).toMatchObject({ state: "open", labels: [DEFAULT_DRIFT_LABEL] });
    expect(issue().body.startsWith(driftMarker("listings", "prod"))).toBe(true);
    expect(issue().body).toContain("canvas.sales");

    // WHEN the same drift is found again THEN nothing is written
    const writesBefore = gh.writes().length;
    expect((await sync(driftOf(["canvas.sales"]))).action).toBe("unchanged");
    expect(gh.writes().length).toBe(writesBefore);

    // WHEN the drift set changes THEN the body is updated and one comment notifies watchers
    expect(await sync(driftOf(["canvas.sales", "canvas.ops"]))).toMatchObject({ action: "updated", number });
    expect(issue().body).toContain("canvas.ops");
    expect(issueComments(number)).toHaveLength(1);
    expect(issueComments(number)[0]).toMatch(/^The drift changed: 2 objects drifted/);

    // WHEN the drift clears THEN a comment and the issue is closed
    expect(await sync(driftOf([]))).toMatchObject({ action: "closed", number });
    expect(issue()).toMatchObject({ state: "closed", state_reason: "completed" });
    expect(issueComments(number)[1]).toMatch(/^Drift cleared/);

    // AND with no drift and no open issue nothing happens
    const after = gh.writes().length;
    expect(await sync(driftOf([]))).toEqual({ action: "none" });
    expect(gh.writes().length).toBe(after);
    expect(gh.issues).toHaveLength(1);
  });

  it("GIVEN no field drift but mandatory rules the platform's objects do not meet THEN the issue opens, updates when the rules not met change, ignores advisory and exempted ones, and closes once they are met", async () => {
    const result = (rule: string, address: string, extra: Partial<PolicyResult> = {}): PolicyResult => ({
      rule,
      severity: "mandatory",
      address,
      message: `${address} breaks ${rule}`,
      rule_source: { file: "policies.yaml", line: 2, column: 11, path: "rules[0].name" },
      ...extra,
    });
    const breaking = (results: PolicyResult[]): DriftReport => ({
      ...driftOf([]),
      policy: {
        origin: "policies.yaml",
        digest: "sha256:x",
        stage: "drift",
        rules: 2,
        skipped: [],
        results,
        violations: results.filter((r) => r.severity === "mandatory" && !r.exempted).length,
        warnings: results.filter((r) => r.severity === "advisory").length,
      },
    });
    const quiet = [
      result("naming", "canvas.a", { severity: "advisory" }),
      result("needs-passcode", "canvas.old", { exempted: "migrated in Q3" }),
    ];
    expect(await sync(breaking(quiet))).toEqual({ action: "none" });

    const opened = await sync(breaking([...quiet, result("needs-passcode", "canvas.sales")]));
    expect(opened.action).toBe("opened");
    const number = (opened as { number: number }).number;
    const issue = () => gh.issues.find((i) => i.number === number)!;
    expect(issue().title).toBe("Drift: listings (prod): 1 mandatory policy rule is not met");
    expect(issue().body).toContain("The platform holds objects that mandatory policy rules refuse");
    expect(issue().body).toContain("canvas.sales breaks needs-passcode");

    expect((await sync(breaking([result("needs-passcode", "canvas.sales")]))).action).toBe("unchanged");
    const two = await sync(
      breaking([result("needs-passcode", "canvas.sales"), result("needs-passcode", "canvas.ops")]),
    );
    expect(two).toMatchObject({ action: "updated", number });
    expect(issueComments(number)[0]).toMatch(/^The drift changed: 2 mandatory policy rules are not met/);

    expect(await sync(breaking(quiet))).toMatchObject({ action: "closed", number });
  });

  it("opens a new issue when drift returns after the old one was closed", async () => {
    await sync(driftOf(["canvas.sales"]));
    await sync(driftOf([]));
    const again = await sync(driftOf(["canvas.sales"]));
    expect(again.action).toBe("opened");
    expect(gh.issues.map((i) => i.state)).toEqual(["closed", "open"]);
  });

  it("keeps one issue per project and target", async () => {
    await sync(driftOf(["canvas.sales"], "listings", "prod"));
    await sync(driftOf(["canvas.sales"], "listings", "staging"));
    await sync(driftOf(["canvas.sales"], "listings", "prod"));
    expect(gh.issues.map((i) => i.title).sort()).toEqual([
      "Drift: listings (prod): 1 object drifted",
      "Drift: listings (staging): 1 object drifted",
    ]);
  });

  it("finds its issue by the marker, not the title, and ignores pull requests and unmarked issues", async () => {
    gh.addIssue({
      title: "Drift: listings (prod): 1 object drifted",
      body: "a person wrote this",
      labels: [DEFAULT_DRIFT_LABEL],
    });
    gh.addPullRequest("Drift: listings (prod)");
    const mine = gh.addIssue({
      title: "renamed by a person",
      body: `${driftMarker("listings", "prod")}\n<!-- svc-iac:drift-fingerprint fp-canvas.sales -->\nold`,
      labels: [DEFAULT_DRIFT_LABEL],
    });
    expect(await sync(driftOf(["canvas.sales"]))).toMatchObject({ action: "unchanged", number: mine.number });
  });

  it("keeps the issue body within GitHub's limit for a very large drift", async () => {
    const many = Array.from({ length: 5000 }, (_, i) => `canvas.c${String(i).padStart(5, "0")}`);
    await sync(driftOf(many));
    expect(gh.issues[0].body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS);
    const post = gh.calls.find((c) => c.method === "POST");
    expect((JSON.parse(post!.body) as { body: string }).body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS);
  });

  it("lists orphaned objects with the prune hint, and updates the issue when an orphan joins the set", async () => {
    // GIVEN a drift report made from a plan whose only difference is an object that left the repository
    const orphans = (addresses: string[]): PlanOutcome => ({
      plan: {
        version: 1,
        project: "listings",
        target: "prod",
        actions: [],
        summary: {
          create: 0,
          adopt: 0,
          update: 0,
          rename: 0,
          replace: 0,
          delete: 0,
          share: 0,
          unshare: 0,
          rotate: 0,
          forget: 0,
        },
        orphans: addresses.map((address, i) => ({ address, kind: "Canvas" as const, id: `cv_${i}` })),
        unmanaged: [],
        blocks: [],
        warnings: [],
      },
      steps: [],
      ids: new Map(),
      forget: [],
    });
    const one = driftReport(orphans(["canvas.old_sales"]));
    expect(one).toMatchObject({ drift: true, counts: { orphaned: 1 } });
    const opened = await sync(one);
    expect(opened.action).toBe("opened");
    const number = (opened as { number: number }).number;
    const body = () => gh.issues.find((i) => i.number === number)!.body;
    expect(body()).toContain("#### Orphaned (1)");
    expect(body()).toContain("`svc-iac apply --prune` deletes them; to keep one, add it back to the repository.");
    expect(body()).toContain("- `canvas.old_sales` (id `cv_0`) — removed from the repository, still on the platform");

    // WHEN another object is orphaned THEN the fingerprint differs and the issue is updated
    const two = driftReport(orphans(["canvas.old_sales", "canvas.older"]));
    expect(two.fingerprint).not.toBe(one.fingerprint);
    expect(await sync(two)).toMatchObject({ action: "updated", number });
    expect(body()).toContain("canvas.older");
  });

  it("GIVEN an open issue with our marker opened by another user WHEN drift changes or clears THEN that issue is never edited, commented on or closed", async () => {
    const planted = gh.addIssue({
      title: "looks like ours",
      body: `${driftMarker("listings", "prod")}\n<!-- svc-iac:drift-fingerprint fp-old -->\nplanted`,
      labels: [DEFAULT_DRIFT_LABEL],
      user: "mallory",
    });
    const opened = await sync(driftOf(["canvas.sales"]));
    expect(opened.action).toBe("opened");
    expect((opened as { number: number }).number).not.toBe(planted.number);
    expect(await sync(driftOf([]))).toMatchObject({ action: "closed", number: (opened as { number: number }).number });
    expect(gh.issues.find((i) => i.number === planted.number)).toMatchObject({
      state: "open",
      body: expect.stringContaining("planted"),
      title: "looks like ours",
    });
    expect(gh.writes().filter((c) => c.path.includes(`/issues/${planted.number}`))).toEqual([]);
    expect(await sync(driftOf([]))).toEqual({ action: "none" });
  });
});
