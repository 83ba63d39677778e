import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGithubClient } from "../../src/github/github-client";
import { checkSecretName, githubSecretsPublisher, maskPublisher } from "../../src/github/secrets";
import { startFakeGithub, type FakeGithub } from "../helpers/fake-github";

const TOKEN = "svc_sa_9f8e7d6c5b4a39281706f5e4d3c2b1a0";
let gh: FakeGithub;

beforeEach(async () => {
  gh = await startFakeGithub();
});
afterEach(async () => {
  await gh.close();
});

const octokit = () => createGithubClient({ token: "github_pat_secretswriter", baseUrl: gh.url, warn: () => {} });
const published = (name: string, token = TOKEN) => ({
  address: "service_account.ci",
  kind: "ServiceAccount",
  name,
  token,
});

describe("GitHub Actions secrets publisher", () => {
  it("writes a repository secret sealed to the repository's public key", async () => {
    await githubSecretsPublisher(octokit(), { owner: gh.owner, repo: gh.repo }).publish(
      published("SVC_SERVICE_ACCOUNT_CI_TOKEN"),
    );

    expect(gh.decryptSecret("SVC_SERVICE_ACCOUNT_CI_TOKEN")).toBe(TOKEN);
    const put = gh.calls.find((c) => c.method === "PUT")!;
    expect(put.path).toBe(`/repos/acme/infra/actions/secrets/SVC_SERVICE_ACCOUNT_CI_TOKEN`);
    expect(JSON.parse(put.body)).toEqual({ encrypted_value: expect.any(String), key_id: gh.publicKeyId });
    expect(put.authorization).toBe("token github_pat_secretswriter");
  });

  it("writes an environment secret through the environment's public key", async () => {
    await githubSecretsPublisher(octokit(), { owner: gh.owner, repo: gh.repo, environment: "prod" }).publish(
      published("SVC_TOKEN_PROD"),
    );

    expect(gh.decryptSecret("SVC_TOKEN_PROD", "prod")).toBe(TOKEN);
    expect(gh.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      "GET /repos/acme/infra/environments/prod/secrets/public-key",
      "PUT /repos/acme/infra/environments/prod/secrets/SVC_TOKEN_PROD",
    ]);
  });

  it("fetches the public key once for several tokens, and never sends a token in clear", async () => {
    const publisher = githubSecretsPublisher(octokit(), { owner: gh.owner, repo: gh.repo });
    await publisher.publish(published("FIRST_TOKEN", `${TOKEN}-1`));
    await publisher.publish(published("SECOND_TOKEN", `${TOKEN}-2`));

    expect(gh.calls.filter((c) => c.path.endsWith("/public-key"))).toHaveLength(1);
    expect(gh.decryptSecret("SECOND_TOKEN")).toBe(`${TOKEN}-2`);
    for (const call of gh.calls) expect(`${call.path} ${call.body}`).not.toContain(TOKEN);
  });

  it("stops the rotation (throws) when GitHub refuses the write", async () => {
    gh.failNext("PUT", "/actions/secrets/", 403, "Resource not accessible by integration");
    await expect(
      githubSecretsPublisher(octokit(), { owner: gh.owner, repo: gh.repo }).publish(published("SVC_X_TOKEN")),
    ).rejects.toMatchObject({ status: 403 });
  });

  it("refuses a name GitHub would not accept, before sending anything", async () => {
    expect(() => checkSecretName("GITHUB_THING")).toThrow(/cannot be a GitHub secret name/);
    expect(() => checkSecretName("1ABC")).toThrow(/cannot be a GitHub secret name/);
    await expect(
      githubSecretsPublisher(octokit(), { owner: gh.owner, repo: gh.repo }).publish(published("bad-name")),
    ).rejects.toThrow(/"bad-name"/);
    expect(gh.calls).toEqual([]);
  });
});

describe("log mask publisher", () => {
  it("asks the runner to mask the token", async () => {
    const lines: string[] = [];
    await maskPublisher((t) => lines.push(t)).publish(published("X"));
    expect(lines).toEqual([`::add-mask::${TOKEN}\n`]);
  });
});
