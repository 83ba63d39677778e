/** The command's messages as the action shows them: inputs where the command line has flags, whole commands untouched. */
import { describe, expect, it } from "vitest";
import { inActionWords } from "../../src/github/input-words";
import { renderDriftText } from "../../src/reconcile/render/drift-text";
import { sampleDrift } from "../reconcile/render/fixtures";

describe("GIVEN a message of the command shown by the action", () => {
  it.each([
    ["Run with `--prune` to delete these.", "Run with the input `prune: true` to delete these."],
    [
      "Kept, prune is off — run with --prune to delete:",
      "Kept, prune is off — run with the input prune: true to delete:",
    ],
    [
      "Check the list, then run again with --max-deletions 12 to allow it.",
      "Check the list, then run again with the input max-deletions: 12 to allow it.",
    ],
    [
      "or run again with --allow-cascade to let them go.",
      "or run again with the input allow-cascade: true to let them go.",
    ],
    [
      "If that is really what you want, run again with --allow-delete-all.",
      "If that is really what you want, run again with the input allow-delete-all: true.",
    ],
    [
      "Run with --outputs FILE (written with mode 0600), or --discard-tokens to create it anyway.",
      "Run with the inputs github-secrets and secrets-token (the token then goes to GitHub secrets), or the input discard-tokens: true to create it anyway.",
    ],
    [
      "still on the platform: `svc-iac apply --prune` deletes them",
      "still on the platform: an apply with the input `prune: true` deletes them",
    ],
  ])("WHEN it names a flag (%s) THEN it names the input instead", (message, shown) => {
    expect(inActionWords(message)).toBe(shown);
  });

  it("WHEN the drift report in the action's log (the text one) says how to delete orphans THEN it names the input, not --prune", () => {
    const text = renderDriftText(sampleDrift());
    expect(text).toContain("svc-iac apply --prune deletes them");
    const shown = inActionWords(text);
    expect(shown).toContain("an apply with the input prune: true deletes them");
    expect(shown).not.toContain("--prune");
  });

  it("WHEN it holds a whole command to run in a terminal THEN the command stays as it is", () => {
    const restore =
      "restore: `svc-iac apply --target default --only udf.a/b`; keep: svc-iac import --target default --keep udf.a/b";
    expect(inActionWords(restore)).toBe(restore);
  });

  it("WHEN it holds dashes that are no flag (a Markdown rule, a comment) THEN they stay", () => {
    for (const text of ["| --- | --- |", "<!-- svc-iac:plan -->", "a---b"]) expect(inActionWords(text)).toBe(text);
  });
});
