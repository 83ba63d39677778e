import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadErrorAnnotations, workspacePath } from "../../src/github/annotations";
import {
  addMask,
  annotation,
  appendOutputs,
  escapeData,
  escapeProperty,
  formatOutputs,
  forWorkflowLog,
  untrustedBlock,
} from "../../src/github/workflow-commands";

describe("workflow command escaping", () => {
  it("escapes percent, carriage return and newline in messages", () => {
    expect(escapeData("100% done\r\nnext")).toBe("100%25 done%0D%0Anext");
  });

  it("escapes colon and comma in properties as well", () => {
    expect(escapeProperty("a:b,c%\n")).toBe("a%3Ab%2Cc%25%0A");
  });

  it("writes an error annotation with file, line, column and title, message kept on one line", () => {
    expect(
      annotation("error", "bad value\nsecond line", { file: "infra/a,b.yaml", line: 3, col: 7, title: "svc-iac: x" }),
    ).toBe("::error file=infra/a%2Cb.yaml,line=3,col=7,title=svc-iac%3A x::bad value%0Asecond line\n");
  });

  it("writes a bare annotation when there are no properties", () => {
    expect(annotation("warning", "careful")).toBe("::warning::careful\n");
  });
});

describe("validation errors as annotations", () => {
  it("point at the file relative to the workspace, with line and column", () => {
    const lines = loadErrorAnnotations(
      [
        {
          file: "canvases/sales/canvas.yaml",
          line: 4,
          column: 3,
          path: "share.rotate_every",
          message: 'expected a duration such as "30d", found "soon"',
        },
        { file: "canvases/sales/loader.py", line: 12, column: 1, path: "", message: "syntax error" },
      ],
      { repoDir: "/work/checkout/infra", workspace: "/work/checkout" },
    );
    expect(lines).toEqual([
      '::error file=infra/canvases/sales/canvas.yaml,line=4,col=3,title=svc-iac%3A invalid configuration::share.rotate_every: expected a duration such as "30d", found "soon"\n',
      "::error file=infra/canvases/sales/loader.py,line=12,col=1,title=svc-iac%3A invalid configuration::syntax error\n",
    ]);
  });

  it("keep the absolute path when the repository folder is outside the workspace", () => {
    expect(workspacePath("svc.yaml", { repoDir: "/elsewhere/repo", workspace: "/work/checkout" })).toBe(
      "/elsewhere/repo/svc.yaml",
    );
  });
});

describe("masking and untrusted text", () => {
  it("masks every line of a multi-line secret on its own", () => {
    expect(addMask("line-one\nline-two\n")).toBe("::add-mask::line-one\n::add-mask::line-two\n");
  });

  it("switches workflow commands off around text the workflow does not control", () => {
    const block = untrustedBlock("::add-mask::x\n::error::fake", "tok123");
    expect(block).toBe("::stop-commands::tok123\n::add-mask::x\n::error::fake\n::tok123::\n");
  });

  it("switches commands off around printed text only under Actions and only when a line would be obeyed", () => {
    const code = "plan\n       ::add-mask::x\n";
    expect(forWorkflowLog(code, {})).toBe(code);
    expect(forWorkflowLog("plan\n  + create udf.a/b\n", { GITHUB_ACTIONS: "true" })).toBe("plan\n  + create udf.a/b\n");
    expect(forWorkflowLog(code, { GITHUB_ACTIONS: "true" })).toMatch(
      /^::stop-commands::([0-9a-f-]{36})\nplan\n {7}::add-mask::x\n::\1::\n$/,
    );
  });
});

describe("step outputs", () => {
  it("writes single-line values as name=value, sorted by name", () => {
    expect(formatOutputs({ "has-changes": "true", "exit-code": "2" })).toBe("exit-code=2\nhas-changes=true\n");
  });

  it("writes multi-line values with a heredoc delimiter", () => {
    expect(formatOutputs({ text: "a\nb" }, () => "DELIM")).toBe("text<<DELIM\na\nb\nDELIM\n");
  });

  it("refuses a value that contains its delimiter", () => {
    expect(() => formatOutputs({ text: "a\nDELIM" }, () => "DELIM")).toThrow(/contains its own delimiter/);
  });

  it("appends to the GITHUB_OUTPUT file", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "gh-out-")), "output");
    await appendOutputs(file, { a: "1" });
    await appendOutputs(file, { b: "2" });
    expect(await readFile(file, "utf8")).toBe("a=1\nb=2\n");
  });
});
