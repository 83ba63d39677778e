import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGithubClient } from "../../src/github/github-client";
import { planMarker } from "../../src/github/markers";
import { COMMENT_MAX_CHARS, fitCommentBody, upsertMarkedComment } from "../../src/github/pr-comment";
import { renderPlanMarkdown } from "../../src/reconcile/render";
import { planCreatingUdfs, startFakeGithub, type FakeGithub } from "../helpers/fake-github";

let gh: FakeGithub;
const octokit = () => createGithubClient({ token: "ghs_testtoken", baseUrl: gh.url, warn: () => {} });
const marker = planMarker("listings", "default");

afterEach(async () => {
  await gh.close();
});

describe("plan comment upsert", () => {
  beforeEach(async () => {
    gh = await startFakeGithub();
  });

  it("creates the comment on the first run and edits the same one on the second", async () => {
    const pr = gh.addPullRequest();
    const ref = { owner: gh.owner, repo: gh.repo, number: pr };
    const first = await upsertMarkedComment(octokit(), ref, marker, `${marker}\nplan one`);
    const second = await upsertMarkedComment(octokit(), ref, marker, `${marker}\nplan two`);

    expect(first.action).toBe("created");
    expect(second).toMatchObject({ action: "updated", id: first.id });
    expect(gh.comments.filter((c) => c.issueNumber === pr)).toEqual([
      expect.objectContaining({ id: first.id, body: `${marker}\nplan two` }),
    ]);
    expect(gh.writes().map((c) => c.method)).toEqual(["POST", "PATCH"]);
  });

  it("writes nothing when the comment already says the same", async () => {
    const pr = gh.addPullRequest();
    gh.addComment(pr, `${marker}\nsame plan`);
    const r = await upsertMarkedComment(
      octokit(),
      { owner: gh.owner, repo: gh.repo, number: pr },
      marker,
      `${marker}\nsame plan`,
    );
    expect(r.action).toBe("unchanged");
    expect(gh.writes()).toEqual([]);
  });

  it("finds the marker by paging through a long thread", async () => {
    await gh.close();
    gh = await startFakeGithub({ maxPerPage: 2 });
    const pr = gh.addPullRequest();
    for (let i = 0; i < 3; i++) gh.addComment(pr, `review comment ${i}`, "alice");
    const mine = gh.addComment(pr, `${marker}\nold plan`);
    gh.addComment(pr, "another review comment", "bob");

    const r = await upsertMarkedComment(
      octokit(),
      { owner: gh.owner, repo: gh.repo, number: pr },
      marker,
      `${marker}\nnew plan`,
    );

    expect(r).toMatchObject({ action: "updated", id: mine.id });
    expect(gh.calls.some((c) => c.method === "GET" && c.path.includes("page=2"))).toBe(true);
    expect(gh.comments).toHaveLength(5);
  });

  it("matches by the hidden marker, never by the heading", async () => {
    const pr = gh.addPullRequest();
    const lookalike = gh.addComment(pr, "### Plan for `listings` (`default`)\n\nsomeone pasted an old plan", "alice");
    const quoted = gh.addComment(pr, `> quoting the bot:\n> ${marker}`, "bob");
    const mine = gh.addComment(pr, `${marker}\n### An entirely different heading`);

    const r = await upsertMarkedComment(
      octokit(),
      { owner: gh.owner, repo: gh.repo, number: pr },
      marker,
      `${marker}\n### Plan for \`listings\` (\`default\`)`,
    );

    expect(r.id).toBe(mine.id);
    expect(gh.comments.find((c) => c.id === lookalike.id)?.body).toContain("someone pasted");
    expect(gh.comments.find((c) => c.id === quoted.id)?.body).toContain("quoting the bot");
  });

  it("keeps one comment per project and target", async () => {
    const pr = gh.addPullRequest();
    const ref = { owner: gh.owner, repo: gh.repo, number: pr };
    const prod = planMarker("listings", "prod");
    await upsertMarkedComment(octokit(), ref, marker, `${marker}\ndefault plan`);
    await upsertMarkedComment(octokit(), ref, prod, `${prod}\nprod plan`);
    await upsertMarkedComment(octokit(), ref, prod, `${prod}\nprod plan 2`);
    expect(gh.comments.map((c) => c.body).sort()).toEqual([`${marker}\ndefault plan`, `${prod}\nprod plan 2`]);
  });

  it("deletes extra marked comments left by racing runs, so exactly one remains", async () => {
    const pr = gh.addPullRequest();
    const oldest = gh.addComment(pr, `${marker}\nrun A`);
    gh.addComment(pr, `${marker}\nrun B`);
    const r = await upsertMarkedComment(
      octokit(),
      { owner: gh.owner, repo: gh.repo, number: pr },
      marker,
      `${marker}\nrun C`,
    );
    expect(r).toMatchObject({ action: "updated", id: oldest.id, removedDuplicates: 1 });
    expect(gh.comments.map((c) => c.body)).toEqual([`${marker}\nrun C`]);
  });

  it("refuses a body that does not open with the marker (it could never be found again)", async () => {
    const pr = gh.addPullRequest();
    await expect(
      upsertMarkedComment(octokit(), { owner: gh.owner, repo: gh.repo, number: pr }, marker, "### Plan"),
    ).rejects.toThrow(/must open with its marker/);
    expect(gh.writes()).toEqual([]);
  });
});

describe("plan comment upsert touches only comments written by the token's identity", () => {
  it("GIVEN the workflow token and a marked comment by another user WHEN upserting THEN that comment is neither edited nor deleted, and a new one is created", async () => {
    gh = await startFakeGithub();
    const pr = gh.addPullRequest();
    const planted = gh.addComment(pr, `${marker}\nplanted by mallory`, "mallory");
    const r = await upsertMarkedComment(
      octokit(),
      { owner: gh.owner, repo: gh.repo, number: pr },
      marker,
      `${marker}\nthe plan`,
    );
    expect(r.action).toBe("created");
    expect(gh.comments.find((c) => c.id === planted.id)?.body).toBe(`${marker}\nplanted by mallory`);
    expect(gh.comments.find((c) => c.id === r.id)).toMatchObject({
      user: "github-actions[bot]",
      body: `${marker}\nthe plan`,
    });
    expect(gh.writes().map((c) => `${c.method} ${c.path}`)).toEqual([
      `POST /repos/${gh.owner}/${gh.repo}/issues/${pr}/comments`,
    ]);
  });

  it("GIVEN marked comments by others racing ours WHEN upserting THEN only our duplicates are deleted", async () => {
    gh = await startFakeGithub();
    const pr = gh.addPullRequest();
    const theirs = gh.addComment(pr, `${marker}\nolder, by someone else`, "eve");
    const ours = gh.addComment(pr, `${marker}\nrun A`);
    gh.addComment(pr, `${marker}\nrun B`);
    const late = gh.addComment(pr, `${marker}\nnewer, by someone else`, "mallory");
    const r = await upsertMarkedComment(
      octokit(),
      { owner: gh.owner, repo: gh.repo, number: pr },
      marker,
      `${marker}\nrun C`,
    );
    expect(r).toMatchObject({ action: "updated", id: ours.id, removedDuplicates: 1 });
    expect(gh.comments.map((c) => [c.id, c.user, c.body])).toEqual([
      [theirs.id, "eve", `${marker}\nolder, by someone else`],
      [ours.id, "github-actions[bot]", `${marker}\nrun C`],
      [late.id, "mallory", `${marker}\nnewer, by someone else`],
    ]);
  });

  it("GIVEN a personal token (GET /user answers its login) WHEN upserting THEN its own comment is edited and the workflow bot's is left alone", async () => {
    gh = await startFakeGithub({ users: { ghp_personal: "deploy-bot" } });
    const pr = gh.addPullRequest();
    const bots = gh.addComment(pr, `${marker}\nby the workflow token`);
    const mine = gh.addComment(pr, `${marker}\nold plan`, "deploy-bot");
    const personal = createGithubClient({ token: "ghp_personal", baseUrl: gh.url, warn: () => {} });
    const r = await upsertMarkedComment(
      personal,
      { owner: gh.owner, repo: gh.repo, number: pr },
      marker,
      `${marker}\nnew plan`,
    );
    expect(r).toMatchObject({ action: "updated", id: mine.id, removedDuplicates: 0 });
    expect(gh.comments.find((c) => c.id === bots.id)?.body).toBe(`${marker}\nby the workflow token`);
    expect(gh.calls.filter((c) => c.path === "/user")).toHaveLength(1);
  });
});

describe("plan comment body", () => {
  const link = "[the workflow run's artifacts](https://github.com/acme/infra/actions/runs/42)";

  it("cuts an oversized plan below GitHub's 65,536-character limit and says where the full plan is", () => {
    const plan = planCreatingUdfs(3000);
    expect(renderPlanMarkdown(plan, { maxChars: 10_000_000 }).length).toBeGreaterThan(COMMENT_MAX_CHARS);

    const body = fitCommentBody(
      marker,
      "<sub>svc-iac plan</sub>",
      (maxChars) => renderPlanMarkdown(plan, { maxChars, detailsLink: link }),
      "CUT HERE",
    );

    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS);
    expect(body.startsWith(`${marker}\n`)).toBe(true);
    expect(body).toContain("| Action | Count |");
    expect(body).toMatch(/shortened to fit/);
    expect(body).toContain("https://github.com/acme/infra/actions/runs/42");
  });

  it("still fits when a renderer ignores its budget, with the cut note", () => {
    const body = fitCommentBody(
      marker,
      "heading",
      () => "row\n".repeat(40_000),
      "_Cut to fit; the full plan is in the artifacts._",
    );
    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS);
    expect(body.endsWith("_Cut to fit; the full plan is in the artifacts._")).toBe(true);
  });

  it("leaves a small plan whole", () => {
    const plan = planCreatingUdfs(2);
    const body = fitCommentBody(
      marker,
      "heading",
      (maxChars) => renderPlanMarkdown(plan, { maxChars, detailsLink: link }),
      "CUT",
    );
    expect(body).toContain("udf.sales/loader_00001");
    expect(body).not.toMatch(/shortened|CUT/);
  });
});
