/**
 * Every plan the tests produce validates against the published schema (`schemas/plan.schema.json`,
 * its `plan` definition): `planChanges`, which every command plans through, is wrapped so that a
 * plan outside the schema fails the test that made it, even where the command turns the error
 * into an exit code the test expected anyway.
 */
import { afterEach, vi } from "vitest";
import { planDocumentErrors } from "../helpers/saved-plan";

const invalid = vi.hoisted(() => [] as string[]);

vi.mock("../../src/reconcile/plan", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/reconcile/plan")>();
  return {
    ...original,
    planChanges: (input: Parameters<typeof original.planChanges>[0]) => {
      const outcome = original.planChanges(input);
      const errors = planDocumentErrors(outcome.plan);
      if (errors.length) {
        const message = `The plan does not validate against schemas/plan.schema.json: ${errors.join("; ")}`;
        invalid.push(message);
        throw new Error(message);
      }
      return outcome;
    },
  };
});

afterEach(() => {
  const found = invalid.splice(0);
  if (found.length) throw new Error(found.join("\n"));
});
