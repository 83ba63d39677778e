/** What init does to an existing .gitignore: adds .svc-iac/ once, in the file's own line endings, unless the folder is ignored already. */
import { describe, expect, it } from "vitest";
import { gitignoreWithState } from "../../../src/reconcile/init/starter-repository";

const ADDED = "# svc-iac's local state: the embedded emulator's data and the default inventory.\n.svc-iac/\n";

describe("init's lines in an existing .gitignore", () => {
  it("GIVEN a file ignoring .svc-iac already, in any common form THEN it is left alone", () => {
    for (const line of [".svc-iac/", "/.svc-iac", ".svc-iac/*", "**/.svc-iac/", "  .svc-iac  "])
      expect(gitignoreWithState(`node_modules/\n${line}\n`), line).toBeUndefined();
  });

  it("GIVEN a later !.svc-iac/ that un-ignores the folder THEN the lines are added, as git would not ignore it", () => {
    expect(gitignoreWithState(".svc-iac/\n!.svc-iac/\n")).toBe(`.svc-iac/\n!.svc-iac/\n\n${ADDED}`);
    expect(gitignoreWithState("!.svc-iac/\n.svc-iac/\n")).toBeUndefined();
  });

  it("GIVEN a file with CRLF line endings THEN the added lines use CRLF too", () => {
    expect(gitignoreWithState("node_modules/\r\ndist/\r\n")).toBe(
      `node_modules/\r\ndist/\r\n\r\n${ADDED.replace(/\n/g, "\r\n")}`,
    );
  });

  it("GIVEN a file without a final line break THEN a blank line separates the added lines", () => {
    expect(gitignoreWithState("node_modules/")).toBe(`node_modules/\n\n${ADDED}`);
  });
});
