import { describe, expect, it } from "vitest";
import { COMMAND_NAMES, formatCommandHelp } from "../../src/cli/usage";
import { readPage } from "./markdown-pages";

/** A command's synopsis lines, as its `--help` prints them (without the two-space indent), and the options they name. */
function usageOf(command: (typeof COMMAND_NAMES)[number]): { synopsis: string; options: string[] } {
  const synopsis: string[] = [];
  let inSynopsis = false;
  for (const line of formatCommandHelp(command).split("\n")) {
    // A synopsis starts at "  svc-iac NAME" and goes on while lines start with an option or a [bracket].
    inSynopsis = /^ {2}svc-iac /.test(line) || (inSynopsis && /^ {3,}[[-]/.test(line));
    if (inSynopsis) synopsis.push(line.slice(2));
  }
  return { synopsis: synopsis.join("\n"), options: unique(synopsis.join("\n").match(/--[a-z][a-z-]*/g) ?? []) };
}
const unique = (xs: string[]) => [...new Set(xs)].sort();

/** The reference's section for a command: its synopsis block and the options its table lists. */
function referenceOf(text: string, command: string): { synopsis: string; options: string[] } | undefined {
  const section = text.split(/^### /m).find((s) => s.startsWith(`svc-iac ${command}\n`));
  if (!section) return undefined;
  const body = section.split(/^## /m)[0]!;
  const synopsis = /```\n([\s\S]*?)\n```/.exec(body)?.[1] ?? "";
  return { synopsis, options: unique([...body.matchAll(/^\| `(--[a-z][a-z-]*)`/gm)].map((m) => m[1]!)) };
}

describe("GIVEN the command reference in docs/commands.md and the command's own usage", () => {
  const text = readPage("docs/commands.md").text;

  it("THEN the reference has a section for every command, and no section for a command that does not exist", () => {
    const documented = [...text.matchAll(/^### svc-iac (\S+)$/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual([...COMMAND_NAMES].sort());
  });

  it.each([...COMMAND_NAMES])(
    "THEN svc-iac %s's synopsis and options in the reference are those of its usage",
    (command) => {
      const usage = usageOf(command);
      expect(usage.options.length + usage.synopsis.length).toBeGreaterThan(0);
      expect(referenceOf(text, command)).toEqual(usage);
    },
  );
});
