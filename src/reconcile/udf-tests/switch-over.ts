/**
 * The tested switch-over of a UDF with `deploy: tested`: its new body goes first to a hidden
 * candidate record (a UDF without a canvas, slug `svc-candidate-…`), the UDF's declared tests run
 * against the candidate on the target's real-time instance, and only when every one passes does the
 * caller update the live record in place (same id, same shared token, one request). The candidate is
 * removed either way.
 *
 * Each candidate is noted in the state (`switch-over.json` beside the inventory) before it is made
 * and crossed off once removed: an apply stopped in between (killed, the network gone) leaves its
 * note, and the next apply removes the candidate first ({@link SwitchOver.cleanup}), by id, or by
 * its slug when the create's answer was lost.
 */
import { isApiError, scrub, scrubDeep } from "../../api/errors";
import type { SvcClient } from "../../api/client";
import { z } from "zod";
import { CANDIDATE_SLUG_PREFIX } from "../../kinds/udf/switch-over";
import { udfBodyOf } from "../../kinds/udf/resource";
import type { UdfInputs } from "../../kinds/udf/udf-state";
import type { UdfTest } from "../../model/desired";
import { SvcError } from "../../errors";
import type { StateBackend } from "../state/types";
import { runTests, type TestOutcome } from "./run-tests";
import { oneLine } from "../render/values";

/** The state document that notes the candidates in flight. */
export const CANDIDATES_DOCUMENT = "switch-over.json";
/** A bound on the document (a few hundred bytes per candidate in flight). */
const MAX_CANDIDATES_BYTES = 1024 * 1024;

const CandidateNote = z.object({
  address: z.string(),
  slug: z.string().startsWith(CANDIDATE_SLUG_PREFIX),
  id: z.string().optional(),
  since: z.string(),
});
export type CandidateNote = z.infer<typeof CandidateNote>;
const CandidatesFile = z.object({ version: z.literal(1), candidates: z.array(CandidateNote) });

/** A switch-over's tests failed, or could not run: the live UDF is unchanged. */
export class SwitchOverFailed extends SvcError {
  constructor(
    message: string,
    readonly outcomes: TestOutcome[] = [],
  ) {
    super("switch_over_failed", message);
    this.name = "SwitchOverFailed";
  }
}

export interface SwitchOverOptions {
  client: SvcClient;
  /** Where candidates are noted; without one (a library caller), only in memory. */
  backend?: StateBackend;
  /** Every declared test (those of the switched UDF are picked by address). */
  tests: readonly UdfTest[];
  now: () => Date;
  /** Values never shown (secret values, tokens). */
  secrets: Set<string>;
  /** A candidate's slug suffix; random by default. */
  suffix?: () => string;
  /** Each test's outcome, as it comes. */
  onResult?: (o: TestOutcome) => void;
}

/** Tested switch-overs of one apply: candidates made, tested and removed, noted in the state meanwhile. */
export class SwitchOver {
  private notes: CandidateNote[] | undefined;
  private writing: Promise<void> = Promise.resolve();
  private instance: Promise<string> | undefined;

  constructor(private readonly opts: SwitchOverOptions) {}

  /** The tests `address` declares. */
  testsOf(address: string): UdfTest[] {
    return this.opts.tests.filter((t) => t.address === address);
  }

  private async loaded(): Promise<CandidateNote[]> {
    if (this.notes) return this.notes;
    const backend = this.opts.backend;
    const text = backend ? await backend.readDocument(CANDIDATES_DOCUMENT, MAX_CANDIDATES_BYTES) : undefined;
    if (text === undefined) return (this.notes = []);
    let parsed: z.ZodSafeParseResult<z.infer<typeof CandidatesFile>>;
    try {
      parsed = CandidatesFile.safeParse(JSON.parse(text));
    } catch {
      parsed = { success: false } as never;
    }
    if (!parsed.success)
      throw new SvcError(
        "state_unreadable",
        `${backend!.location}/${CANDIDATES_DOCUMENT} is not a list of switch-over candidates; move it away (the candidates it notes, UDFs without a canvas named ${CANDIDATE_SLUG_PREFIX}…, are then removed by hand).`,
      );
    return (this.notes = parsed.data.candidates);
  }

  /** Writes the notes (one write at a time, in the order asked). */
  private save(): Promise<void> {
    const backend = this.opts.backend;
    if (!backend) return Promise.resolve();
    const text = `${JSON.stringify({ version: 1, candidates: this.notes ?? [] }, null, 2)}\n`;
    const next = this.writing.then(() =>
      this.notes?.length
        ? backend.writeDocument(CANDIDATES_DOCUMENT, text)
        : backend.removeDocument(CANDIDATES_DOCUMENT),
    );
    this.writing = next.catch(() => undefined);
    return next;
  }

  /**
   * Removes the candidates an earlier apply left (stopped between making and removing one), and
   * returns a line for each. A candidate that cannot be removed now stays noted for the next run.
   */
  async cleanup(): Promise<string[]> {
    const notes = await this.loaded();
    const lines: string[] = [];
    for (const note of [...notes]) {
      const gone = await this.remove(note);
      lines.push(
        gone
          ? `Removed the switch-over candidate ${note.slug} of ${oneLine(note.address)}, left by an apply stopped on ${note.since}.`
          : `The switch-over candidate ${note.slug} of ${oneLine(note.address)} (left on ${note.since}) could not be removed; the next apply tries again.`,
      );
    }
    return lines;
  }

  /** Removes a candidate (by id, else found by slug) and crosses it off; false when it could not be. */
  private async remove(note: CandidateNote): Promise<boolean> {
    const udfs = this.opts.client.udfs;
    try {
      let id = note.id;
      if (!id) {
        // The create's answer was lost: the candidate, if made, is the one with its slug and no canvas.
        try {
          id = (await udfs.getExecEnvBySlug(note.slug)).id;
        } catch (e) {
          if (!isApiError(e, "not_found")) throw e;
        }
      }
      if (id) {
        try {
          await udfs.delete(id);
        } catch (e) {
          if (!isApiError(e, "not_found")) throw e;
        }
      }
    } catch {
      return false;
    }
    this.notes = (this.notes ?? []).filter((n) => n !== note);
    await this.save();
    return true;
  }

  /** The real-time instance the tests run on (asked once per apply). */
  private clientId(): Promise<string> {
    this.instance ??= this.opts.client.realtime.preferredInstance().then((i) => {
      if (!i)
        throw new SwitchOverFailed(
          "deploy: tested needs a real-time instance to run the tests on, and the target has none (GET /realtime-instance/available is empty); the live UDF is unchanged",
        );
      return i.client_id;
    });
    return this.instance;
  }

  /**
   * Tries `inputs` (the UDF's new inputs) on a candidate and runs `address`'s tests on it.
   * @throws SwitchOverFailed when a test fails or the tests cannot run: the live UDF must not change.
   */
  async test(address: string, inputs: UdfInputs): Promise<TestOutcome[]> {
    const tests = this.testsOf(address);
    if (!tests.length)
      throw new SwitchOverFailed(`${address} has deploy: tested and no tests; the live UDF is unchanged`);
    const clientId = await this.clientId();
    await this.loaded();
    const suffix = this.opts.suffix?.() ?? crypto.randomUUID().replaceAll("-", "").slice(0, 12);
    const note: CandidateNote = {
      address,
      slug: `${CANDIDATE_SLUG_PREFIX}${suffix}`,
      since: this.opts.now().toISOString(),
    };
    // Noted before it is made: a stop at any point after this leaves a note the next apply acts on.
    // Into the current list: a switch-over running beside this one may have replaced it since.
    this.notes = [...(this.notes ?? []), note];
    await this.save();
    try {
      const made = await this.opts.client.udfs.create({ slug: note.slug, udf_body: udfBodyOf(inputs) });
      note.id = made.id;
      await this.save();
      // A test may pass a secret value, and a result may echo it: what leaves here is scrubbed.
      const secrets = [...this.opts.secrets];
      const outcomes = (
        await runTests({ client: this.opts.client, clientId, udfIds: new Map([[address, made.id]]) }, tests, (o) =>
          this.opts.onResult?.(scrubDeep(o, secrets)),
        )
      ).map((o) => scrubDeep(o, secrets));
      const failed = outcomes.filter((o) => o.status === "failed");
      if (failed.length) throw new SwitchOverFailed(this.failureText(address, failed, outcomes.length), outcomes);
      return outcomes;
    } finally {
      await this.remove(note);
    }
  }

  private failureText(address: string, failed: TestOutcome[], total: number): string {
    const lines = failed.map((o) => {
      const why = [o.message, ...o.mismatches.map((m) => `${m.path}: ${m.message}`)].filter(Boolean).join("; ");
      return `${oneLine(o.name)} (${o.source}): ${oneLine(why)}`;
    });
    const text = `the new body of ${address} failed ${failed.length} of its ${total} tests on a candidate, so the live UDF is unchanged: ${lines.join("; ")}`;
    return scrub(text, [...this.opts.secrets]);
  }
}
