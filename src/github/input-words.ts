/**
 * The command's messages in the action's words: a message that says "run with --prune" is true on
 * a terminal, but the action takes inputs, not flags. Whole commands (`svc-iac apply --only x`,
 * which a user may run on a terminal) are left as they are; a flag named on its own becomes the
 * input that sets it.
 */

/** Each flag the action has an input for, and how a message names that input: [words, setting]. */
const INPUT_FOR: [RegExp, (m: RegExpExecArray) => [string, string]][] = [
  [
    /--outputs FILE \(written with mode 0600\)/y,
    () => ["the inputs ", "github-secrets and secrets-token (the token then goes to GitHub secrets)"],
  ],
  [/--max-deletions (\d+)/y, (m) => ["the input ", `max-deletions: ${m[1]}`]],
  [/--max-deletions\b/y, () => ["the input ", "max-deletions"]],
  [/--(prune|allow-cascade|allow-delete-all|discard-tokens)\b/y, (m) => ["the input ", `${m[1]}: true`]],
  [/--(only|replace)\b/y, (m) => ["the input ", m[1]!]],
  [/--out\b/y, () => ["the input ", "plan-file"]],
  [/--target\b/y, () => ["the input ", "target"]],
];

/** Whole commands that have an action equivalent: the drift report's way to delete what left the repository. */
const COMMANDS_FOR: [string, string][] = [
  ["`svc-iac apply --prune`", "an apply with the input `prune: true`"],
  // The text report (the action's log) names it without a code span.
  ["svc-iac apply --prune deletes", "an apply with the input prune: true deletes"],
];

/** Whether the flag at `at` is part of a `svc-iac COMMAND ...` command written on the same line. */
function insideCommand(text: string, at: number): boolean {
  const lineStart = text.lastIndexOf("\n", at) + 1;
  const start = text.lastIndexOf("svc-iac ", at);
  if (start < lineStart) return false;
  // A command runs up to the end of its code span or sentence.
  return !/`|[.;,:]\s|\(|\)/.test(text.slice(start, at));
}

/** `text` with each flag the action has an input for named as that input. */
export function inActionWords(text: string): string {
  for (const [command, words] of COMMANDS_FOR) text = text.split(command).join(words);
  let out = "";
  let i = 0;
  while (i < text.length) {
    const at = text.indexOf("--", i);
    if (at === -1) break;
    out += text.slice(i, at);
    let replaced: { text: string; length: number } | undefined;
    if (!insideCommand(text, at) && !/[\w-]/.test(text[at - 1] ?? "")) {
      for (const [pattern, say] of INPUT_FOR) {
        pattern.lastIndex = at;
        const m = pattern.exec(text);
        if (m) {
          const [words, setting] = say(m);
          // `--prune` in a code span: the setting stays in it, the words go before it.
          const quoted = out.endsWith("`") && text[at + m[0].length] === "`";
          if (quoted) out = out.slice(0, -1);
          replaced = {
            text: quoted ? `${words}\`${setting}\`` : words + setting,
            length: m[0].length + (quoted ? 1 : 0),
          };
          break;
        }
      }
    }
    out += replaced ? replaced.text : "--";
    i = at + (replaced ? replaced.length : 2);
  }
  return out + text.slice(i);
}
