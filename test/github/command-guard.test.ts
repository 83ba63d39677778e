import { describe, expect, it } from "vitest";
import { CommandGuard, logLine } from "../../src/github/command-guard";
import { annotation, untrustedBlock } from "../../src/github/workflow-commands";
import { foreignCommands, obeyedCommands } from "../helpers/workflow-log";

function guarded(): { guard: CommandGuard; log: () => string } {
  let log = "";
  return { guard: new CommandGuard({ write: (t) => (log += t) }), log: () => log };
}

describe("CommandGuard", () => {
  it("keeps ordinary text and svc-iac's own commands as they are", () => {
    const { guard, log } = guarded();
    guard.text("Plan for listings (default)\n\n  + create   canvas.sales\n");
    guard.command(annotation("error", "bad", { title: "svc-iac" }));
    guard.text("done\n");
    expect(log()).toBe("Plan for listings (default)\n\n  + create   canvas.sales\n::error title=svc-iac::bad\ndone\n");
    expect(obeyedCommands(log())).toEqual(["::error title=svc-iac::bad"]);
  });

  it("shows a lone CR, other control characters and Unicode line separators as escapes, so text cannot start a line", () => {
    const { guard, log } = guarded();
    guard.text("x: name rejected\r::warning title=x::pwn\u2028::add-mask::svc\u0085::error::y\x1b[2K\n");
    expect(log()).toBe("x: name rejected\\r::warning title=x::pwn\\u2028::add-mask::svc\\u0085::error::y\\x1b[2K\n");
    expect(obeyedCommands(log())).toEqual([]);
  });

  it("puts a backslash before a line that would start a workflow command, in whatever pieces it is written", () => {
    const { guard, log } = guarded();
    guard.text("error: a\n  ::add-mask::svc\n##[warning]old form\n");
    guard.text(":");
    guard.text(":warning::split\n");
    guard.text("   ");
    guard.text("#");
    guard.text("#[error]split old\n");
    guard.text("## Drift report\n");
    expect(log()).toBe(
      "error: a\n\\  ::add-mask::svc\n\\##[warning]old form\n\\::warning::split\n\\   ##[error]split old\n## Drift report\n",
    );
    expect(foreignCommands(log())).toEqual([]);
  });

  it("writes out a held line start when a command follows, so nothing is lost or reordered", () => {
    const { guard, log } = guarded();
    guard.text(":");
    guard.command(untrustedBlock("::add-mask::svc", "0f0e0d0c-0b0a-4909-8807-060504030201"));
    guard.flush();
    expect(log()).toBe(
      ":::stop-commands::0f0e0d0c-0b0a-4909-8807-060504030201\n::add-mask::svc\n::0f0e0d0c-0b0a-4909-8807-060504030201::\n",
    );
  });
});

describe("logLine", () => {
  it("puts any text on one line", () => {
    expect(logLine("a\r\nb\nc\rd\u2029e")).toBe("a\\r\\nb\\nc\\rd\\u2029e");
  });
});
