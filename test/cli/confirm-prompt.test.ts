/** The `yes` question of apply and destroy, as the operator reads it. */
import { describe, expect, it } from "vitest";
import { confirmQuestion } from "../../src/cli/confirm-prompt";

const planOf = (n: number) => ({
  project: "ren",
  target: "default",
  actions: Array.from({ length: n }, () => ({}) as never),
});

describe("the yes question", () => {
  it("WHEN one change is planned THEN it asks about this change, not 'these 1 changes'", () => {
    expect(confirmQuestion(planOf(1), "apply")).toBe('Apply this change to ren (default)? Only "yes" is accepted:');
    expect(confirmQuestion(planOf(1), "destroy")).toBe(
      'Destroy this object of ren (default)? There is no undo. Only "yes" is accepted:',
    );
  });

  it("WHEN many are planned THEN it counts them, with a thousands separator", () => {
    expect(confirmQuestion(planOf(2000), "apply")).toBe(
      'Apply these 2,000 changes to ren (default)? Only "yes" is accepted:',
    );
    expect(confirmQuestion(planOf(3), "destroy")).toBe(
      'Destroy these 3 objects of ren (default)? There is no undo. Only "yes" is accepted:',
    );
  });
});
