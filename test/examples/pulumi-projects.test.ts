/**
 * Every Pulumi project file in the repository (each `Pulumi.yaml`, and each part of one shown in
 * README.md and docs/) passes the checks the Pulumi CLI makes when it loads a project, so no
 * example is refused at the reader's first `pulumi up`.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { documentationFiles, ROOT, readPage } from "../docs/markdown-pages";
import { checkPulumiProject } from "./pulumi-project-rules";

const projectFiles = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
  cwd: ROOT,
  encoding: "utf8",
})
  .split("\n")
  .filter((f) => /(^|\/)Pulumi\.yaml$/.test(f) && !f.includes("node_modules/"));

/** A YAML block of the documentation that is (part of) a Pulumi project file: it has a key only Pulumi.yaml has. */
const PROJECT_KEYS = ["runtime", "plugins", "resources"];
const documentedParts = documentationFiles().flatMap((file) =>
  readPage(file)
    .fences.filter((f) => f.info === "yaml")
    .filter((f) => {
      let data: unknown;
      try {
        data = parse(f.content);
      } catch {
        return false;
      }
      return !!data && typeof data === "object" && PROJECT_KEYS.some((k) => k in (data as object));
    })
    .map((f) => ({ where: `${file}:${f.line + 1}`, text: f.content, line: f.line + 1 })),
);

const shown = (findings: ReturnType<typeof checkPulumiProject>, where: (line: number) => string) =>
  findings.map((f) => `${where(f.line)}: ${f.path ? `${f.path}: ` : ""}${f.message}`);

describe("Pulumi project files", () => {
  it("are found: the three examples, and parts of them in the documentation", () => {
    expect(projectFiles).toEqual(
      expect.arrayContaining([
        "examples/pulumi/Pulumi.yaml",
        "examples/pulumi-python/Pulumi.yaml",
        "examples/pulumi-yaml/Pulumi.yaml",
      ]),
    );
    expect(documentedParts.length).toBeGreaterThan(0);
  });

  it.each(projectFiles)("%s passes the Pulumi CLI's project checks", (file) => {
    const findings = checkPulumiProject(readFileSync(join(ROOT, file), "utf8"));
    expect(shown(findings, (line) => `${file}:${line}`)).toEqual([]);
  });

  it("every part of a Pulumi.yaml shown in README.md and docs/ passes them too", () => {
    const findings = documentedParts.flatMap((p) =>
      shown(checkPulumiProject(p.text, { fragment: true }), (line) => `${p.where.split(":")[0]}:${p.line + line - 1}`),
    );
    expect(findings).toEqual([]);
  });
});

describe("the Pulumi project check", () => {
  it("GIVEN another package's key declared with a type THEN it is refused at its line, as the CLI does", () => {
    const text = "name: demo\nruntime: nodejs\nconfig:\n  svc:baseUrl:\n    type: string\n    description: x\n";
    expect(checkPulumiProject(text)).toEqual([
      {
        line: 5,
        path: "config.svc:baseUrl.type",
        message:
          'config "svc:baseUrl" belongs to package "svc", not to project "demo", so it must not declare a type (found type: string); the package declares it',
      },
      expect.objectContaining({
        line: 4,
        path: "config.svc:baseUrl",
        message: expect.stringContaining('needs a "value"'),
      }),
    ]);
  });

  it("GIVEN another package's key with a value, and the project's own keys typed THEN it passes", () => {
    const text = [
      "name: demo",
      "runtime: { name: nodejs, options: { typescript: true } }",
      "config:",
      "  svc:baseUrl: { value: https://host/v1 }",
      "  aws:region: us-west-1",
      "  demo:size: { type: integer, default: 3 }",
      "  names: { type: array, items: { type: string }, default: [a] }",
      "plugins: { providers: [{ name: svc, path: ./node_modules/.bin }] }",
    ].join("\n");
    expect(checkPulumiProject(text)).toEqual([]);
  });

  it("GIVEN the CLI's other refusals THEN each is named with its field", () => {
    const text = [
      "runtime: nodejs",
      "config:",
      "  a: { type: array }",
      "  b: { type: integer, default: abc }",
      "  c: { default: 1, value: 2 }",
      "  d: { type: strin }",
      "  svc:token: { default: x }",
    ].join("\n");
    const paths = checkPulumiProject(text).map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "name",
        "config.a.type",
        "config.b.default",
        "config.c",
        "config.d.type",
        "config.svc:token.default",
      ]),
    );
  });
});
