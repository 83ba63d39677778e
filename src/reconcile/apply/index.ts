/**
 * Apply: runs a plan's steps against the platform. Creates and updates go phase by phase (each
 * kind's `phase` trait) with bounded concurrency;
 * a step whose dependency failed is skipped; deletions run last, in reverse order, and only when
 * nothing failed. Every step is recorded in the inventory as soon as it is done, and reported done
 * once that record is written (see `inventory-writer.ts`). A create of an
 * object the plan's observation did not hold is sent at once; those whose answers were lost are
 * looked up once the phase's other creates are done (one read per parent for all of them) and
 * adopted; an adopt finds its object by key. So running apply again after any failure converges
 * with nothing duplicated.
 *
 * Folder `apply/`: a plan's steps run against the platform (phases, bounded concurrency), the
 * inventory written as they finish, the held lock and the outputs file. May import `src/api`,
 * `src/model`, `src/kinds`, `../phases`, `../plan`, `../state` and the types of `../commands`.
 */
import type { SvcClient } from "../../api/client";
import { scrub } from "../../api/errors";
import type { FingerprintKey } from "../../kinds/fingerprint";
import { CreateOutcomeUnknown, NothingToAdopt, SharedReads } from "../../kinds/fresh-listings";
import type { CreateOptions, KindContext } from "../../kinds/kind";
import type { ReconcileTraits } from "../../kinds/reconcile-traits";
import { KINDS } from "../../kinds/registry";
import type { ProgressEvent, PublishedToken, TokenPublisher } from "../commands/command-types";
import { RepositoryJail } from "../../repository/jail";
import type { InventoryWriter } from "./inventory-writer";
import { checkedInputs, dependenciesOf, rawInputs, referencedAddress } from "../plan/kind-inputs";
import type { DesiredObject, LoadedProject } from "../../model/desired";
import { tokenEnvName } from "./outputs-file";
import { PHASES, phaseOf, traitsOf } from "../phases";
import type { ActionResult, ApplyReport, ResultStatus } from "../plan/plan-model";
import { REPORT_VERSION } from "../plan/plan-model";
import { isDeletion, type PlanOutcome, type Step } from "../plan";
import { forEachBounded } from "../../bounded";
import { syncProtection } from "../plan/protect";
import { withIntent, withoutIntent, withoutIntentKey } from "../state/credential-intent";
import { isAlreadyExists } from "../../kinds/already-exists";
import type { InventoryEntry } from "../../model/inventory";
import { SvcError } from "../../errors";
import { switchesOver } from "../../kinds/udf/switch-over";

export interface ApplyContext {
  client: SvcClient;
  project: LoadedProject;
  inventory: InventoryWriter;
  publishers: TokenPublisher[];
  concurrency: number;
  now: () => Date;
  progress?: (e: ProgressEvent) => void;
  /** Values to scrub from error messages (secret values of the project, tokens seen). */
  secrets: Set<string>;
  /** Why no further step may start (the lock was lost), or undefined to go on. */
  stopReason?: () => string | undefined;
  /** The project's fingerprint key: fingerprints in states and the inventory are keyed with it. */
  fingerprintKey?: FingerprintKey;
  /** Runs the tested switch-overs (`deploy: tested`); without it, such UDFs are updated directly. */
  switchOver?: SwitchOverRunner;
}

/** Tries a UDF's new inputs on a candidate and runs its tests there; throws when the live UDF must not change (see `udf-tests/switch-over.ts`). */
export interface SwitchOverRunner {
  test(address: string, inputs: never): Promise<unknown>;
}

class Applier {
  readonly ids: Map<string, string>;
  readonly results: ActionResult[] = [];
  readonly published: ApplyReport["published"] = [];
  private readonly failed = new Set<string>();
  private readonly declared: Map<string, DesiredObject>;

  constructor(
    private readonly ctx: ApplyContext,
    private readonly outcome: PlanOutcome,
  ) {
    this.ids = new Map(outcome.ids);
    this.declared = new Map(ctx.project.objects.map((o) => [o.address, o]));
    this.kindCtx = { client: ctx.client, now: ctx.now, fingerprintKey: ctx.fingerprintKey };
  }

  private readonly kindCtx: KindContext;
  /** Creates of the current phase whose outcome is unknown: looked up once the phase's other creates are done. */
  private unknown: { step: Step; lost: CreateOutcomeUnknown }[] = [];

  private inputsOf(step: Step): Record<string, any> {
    const d = step.desired!;
    return checkedInputs(
      d,
      rawInputs(d, { idOf: (a) => this.ids.get(a), desired: (a) => this.declared.get(a) }, step.rotation?.value),
    );
  }

  private finish(step: Step, status: ResultStatus, message?: string, id?: string): void {
    const a = step.action;
    if (status !== "done") this.failed.add(a.address);
    this.results.push({
      address: a.address,
      kind: a.kind,
      action: a.action,
      status,
      ...((id ?? a.id) ? { id: id ?? a.id } : {}),
      ...(message ? { message } : {}),
    });
    const progress = this.ctx.progress;
    if (!progress) return;
    const end: ProgressEvent = {
      type: "end",
      address: a.address,
      action: a.action,
      status,
      ...(message ? { message } : {}),
    };
    // Reported once what the step changed in the inventory is written (with its batch): a kill
    // after the report cannot lose the step. Not reported at all if the write failed (apply fails).
    this.reported.push(this.ctx.inventory.whenWritten().then((written) => void (written && progress(end))));
  }

  /** The progress reports waiting for their steps' inventory writes. */
  readonly reported: Promise<void>[] = [];

  private async publish(address: string, kind: string, token: string | null | undefined): Promise<void> {
    if (!token) return;
    this.ctx.secrets.add(token);
    const t: PublishedToken = { address, kind, name: tokenEnvName(address), token };
    const to: string[] = [];
    for (const p of this.ctx.publishers) {
      await p.publish(t);
      to.push(p.name);
    }
    if (to.length) this.published.push({ address, to });
  }

  /** What the inventory keeps about an object after a step. */
  private record(step: Step, id: string, key: string, state: Record<string, any>, minted: boolean): void {
    const a = step.action;
    const now = this.ctx.now().toISOString();
    const old = this.ctx.inventory.get(a.address);
    const kept =
      traitsOf(a.kind).keep?.({ state, rotation: step.rotation, old, fingerprintKey: this.ctx.fingerprintKey }) ?? {};
    const entry: InventoryEntry = {
      kind: a.kind,
      id,
      key,
      createdAt: old && old.id === id ? old.createdAt : now,
      appliedAt: now,
      ...(minted ? { rotatedAt: now } : old?.rotatedAt && old.id === id ? { rotatedAt: old.rotatedAt } : {}),
      ...(Object.values(kept).some((v) => v !== undefined) ? { kept: JSON.parse(JSON.stringify(kept)) } : {}),
      // Cleared only once the token is published (see `create`).
      ...(old?.intent ? { intent: old.intent } : {}),
    };
    this.ctx.inventory.set(a.address, entry);
  }

  /** Writes the kind's output file (the `outputFile` trait), if it has one and the object names a path. */
  private async writeOutputFile(step: Step, state: Record<string, any>): Promise<void> {
    const out = traitsOf(step.action.kind).outputFile;
    const output = step.desired && out?.path(step.desired);
    if (!out || !output) return;
    // Through the jail: a folder linked outside the repository, or .git, is refused, never written.
    RepositoryJail.forProject(this.ctx.project.root).writeText(output, out.text(state));
  }

  /** Creates (or adopts) the object of `step`; records it and publishes its token. */
  private async create(step: Step, recheck?: KindContext): Promise<string> {
    const a = step.action;
    const kind = KINDS[a.kind]!;
    const traits = traitsOf(a.kind);
    const inputs = this.inputsOf(step);
    const key = kind.key(inputs as never);
    if (traits.credential) {
      // A lost answer or a failed publish would leave a credential whose token nobody has: note
      // the intent first, beside every earlier undelivered attempt, and the orphans to delete.
      if (step.retire?.length && a.action === "create") this.rememberRetired(a.address, step.retire);
      this.ctx.inventory.set(
        a.address,
        withIntent(this.ctx.inventory.get(a.address), a.kind, key, this.ctx.now().toISOString()),
      );
      await this.ctx.inventory.flush();
    }
    // The plan observed no object with this key: create at once (looked up only if the answer is lost).
    const lookup: CreateOptions["lookup"] = recheck
      ? "only"
      : !step.observed && (a.action === "create" || a.action === "share")
        ? "never"
        : "first";
    let created: Awaited<ReturnType<typeof kind.create>>;
    try {
      created = await kind.create(recheck ?? this.kindCtx, inputs as never, { lookup });
    } catch (e) {
      // Refused before sending: nothing was made under this key by this attempt.
      const entry = this.ctx.inventory.get(a.address);
      if (traits.credential && isAlreadyExists(e) && entry) {
        const rest = withoutIntentKey(entry, key);
        if (rest) this.ctx.inventory.set(a.address, rest);
        else this.ctx.inventory.remove(a.address);
      }
      throw e;
    }
    const state = created.state as Record<string, any>;
    this.ids.set(a.address, created.id);
    const minted = traits.minted?.(created) ?? false;
    this.record(step, created.id, key, state, minted);
    await this.deliver(step, state, traits.tokenOf?.(state, minted), minted);
    if (traits.credential) {
      // Delivered: the token is in the hands it was meant for.
      const entry = this.ctx.inventory.get(a.address);
      if (entry) this.ctx.inventory.set(a.address, withoutIntent(entry));
    }
    return created.id;
  }

  private async update(step: Step): Promise<string> {
    const a = step.action;
    const kind = KINDS[a.kind]!;
    const inputs = this.inputsOf(step);
    const id = a.id!;
    if (step.layoutOnly) {
      this.record(step, id, kind.key(inputs as never), { ...step.olds, ...inputs }, false);
      return id;
    }
    // deploy: tested: the new body passes its tests on a candidate first, or the live UDF is left as it is.
    if (this.ctx.switchOver && switchesOver(step.desired, a.action, a.fields))
      await this.ctx.switchOver.test(a.address, inputs as never);
    const state = (await kind.update(this.kindCtx, id, step.olds as never, inputs as never)) as Record<string, any>;
    const minted = a.action === "rotate";
    this.record(step, id, kind.key(inputs as never), state, minted);
    if (step.retire?.length) await this.retire(step, step.retire);
    await this.deliver(step, state, minted ? traitsOf(a.kind).tokenOf?.(state, true) : undefined, minted);
    return id;
  }

  /**
   * Writes the object's output file and publishes the token it was given. A token minted by this
   * step that did not reach its hands is marked `undelivered` in the inventory (service accounts
   * keep their `intent` instead), so the next plan mints another instead of saying nothing.
   */
  private async deliver(
    step: Step,
    state: Record<string, any>,
    token: string | null | undefined,
    minted: boolean,
  ): Promise<void> {
    const address = step.action.address;
    try {
      await this.writeOutputFile(step, state);
      await this.publish(address, step.action.kind, token);
    } catch (e) {
      const entry = this.ctx.inventory.get(address);
      if (!(minted && token && entry && !traitsOf(step.action.kind).credential)) throw e;
      this.ctx.inventory.set(address, { ...entry, undelivered: this.ctx.now().toISOString() });
      const why = e instanceof Error ? e.message : String(e);
      throw new SvcError(
        "token_handover_failed",
        `a new token was minted (the old one no longer works) but could not be handed over: ${why}. The next apply mints another and hands it over.`,
      );
    }
  }

  /**
   * Notes in the inventory (`kept.retire`) the credentials `address` replaced and has not
   * deleted yet, so a run stopped at any point deletes them the next time instead of leaving a live
   * credential behind (see `retiredAccounts` in plan.ts).
   */
  private rememberRetired(address: string, ids: string[]): void {
    const entry = this.ctx.inventory.get(address);
    if (!entry) return;
    const { retire: _done, ...kept } = entry.kept ?? {};
    const next = ids.length ? { ...kept, retire: ids } : kept;
    const { kept: _old, ...rest } = entry;
    this.ctx.inventory.set(address, { ...rest, ...(Object.keys(next).length ? { kept: next } : {}) });
  }

  /** Deletes the credentials `step`'s address replaced, crossing each off as it goes. */
  private async retire(step: Step, ids: string[]): Promise<void> {
    let left = [...ids];
    this.rememberRetired(step.action.address, left);
    for (const id of ids) {
      await KINDS[step.action.kind]!.delete(this.kindCtx, id, step.olds as never);
      left = left.filter((x) => x !== id);
      this.rememberRetired(step.action.address, left);
    }
  }

  /** A renamed object keeps its record (creation, rotation times, kept values) under its new address. */
  private moveRecord(from: string, to: string): void {
    const entry = this.ctx.inventory.get(from);
    if (!entry) return;
    this.ctx.inventory.set(to, entry);
    this.ctx.inventory.remove(from);
  }

  private async remove(step: Step): Promise<void> {
    await KINDS[step.action.kind]!.delete(this.kindCtx, step.action.id!, step.olds as never);
  }

  /** Runs one step; `recheck` (a context with shared reads) looks up and adopts the object of a create whose outcome was unknown. */
  private async run(step: Step, recheck?: { ctx: KindContext; lost: CreateOutcomeUnknown }): Promise<void> {
    const a = step.action;
    const blocked = step.desired ? dependenciesOf(step.desired).find((d) => this.failed.has(d)) : undefined;
    // The report line already says "skipped": the message is only the reason.
    if (blocked) return this.finish(step, "skipped", `${blocked} failed`);
    const stop = this.ctx.stopReason?.();
    if (stop) return this.finish(step, "skipped", stop);
    if (!recheck) this.ctx.progress?.({ type: "begin", address: a.address, action: a.action });
    try {
      let id = a.id;
      if (a.movedFrom) this.moveRecord(a.movedFrom, a.address);
      switch (a.action) {
        case "create":
        case "adopt":
        case "share":
          id = await this.create(step, recheck?.ctx);
          // Orphans of earlier undelivered attempts go once the new token is out.
          if (step.retire?.length) await this.retire(step, step.retire);
          break;
        case "update":
          id = await this.update(step);
          break;
        case "rename":
          if (a.fields.length) id = await this.update(step);
          break;
        case "rotate":
        case "replace":
          if (traitsOf(a.kind).rotation?.inPlace) id = await this.update(step);
          else if (step.deleteFirst) {
            await this.remove(step);
            id = await this.create(step);
          } else {
            // New first: its token is published before the old credential stops working.
            const retired = [a.id!, ...(step.retire ?? [])];
            const credential = !!traitsOf(a.kind).credential;
            if (credential) this.rememberRetired(a.address, retired);
            id = await this.create(step);
            if (credential) await this.retire(step, retired);
            else await this.remove(step);
          }
          break;
        case "forget":
          this.ctx.inventory.forget(a.address, this.ctx.now().toISOString());
          break;
        case "delete":
        case "unshare":
          await this.remove(step);
          if (step.retire?.length) await this.retire(step, step.retire);
          this.ctx.inventory.remove(a.address);
          break;
      }
      this.finish(step, "done", undefined, id);
    } catch (e) {
      if (e instanceof CreateOutcomeUnknown && !recheck) return void this.unknown.push({ step, lost: e });
      // Looked up after an unknown outcome and not there: the create failed, as its answer said.
      const error = e instanceof NothingToAdopt && recheck ? recheck.lost.cause : e;
      this.finish(step, "failed", scrub(error instanceof Error ? error.message : String(error), [...this.ctx.secrets]));
    }
  }

  /**
   * Looks up the objects of the phase's creates whose outcome was unknown and adopts those that
   * exist, with one read per parent shared by all of them (see `fresh-listings.ts`).
   */
  private async recheckUnknown(): Promise<void> {
    const unknown = this.unknown;
    this.unknown = [];
    if (!unknown.length) return;
    const ctx: KindContext = { ...this.kindCtx, reads: new SharedReads() };
    await forEachBounded(unknown, this.ctx.concurrency, ({ step, lost }) => this.run(step, { ctx, lost }));
  }

  async runAll(): Promise<void> {
    const steps = this.outcome.steps;
    this.ctx.progress?.({ type: "start", total: steps.length });
    for (const address of this.outcome.forget) this.ctx.inventory.remove(address);
    for (const kind of PHASES) {
      const phase = steps.filter((s) => !isDeletion(s) && s.action.kind === kind);
      await forEachBounded(phase, this.ctx.concurrency, (s) => this.run(s));
      await this.recheckUnknown();
      const layout = traitsOf(kind).layout;
      if (layout) await this.layout(phase, layout);
    }
    const deletions = steps.filter(isDeletion).sort((a, b) => phaseOf(b.action.kind) - phaseOf(a.action.kind));
    if (this.failed.size) {
      for (const s of deletions) this.finish(s, "skipped", "deletions run only when every other step succeeded");
      return;
    }
    for (const kind of [...PHASES].reverse()) {
      await forEachBounded(
        deletions.filter((s) => s.action.kind === kind),
        this.ctx.concurrency,
        (s) => this.run(s),
      );
    }
  }

  /** Sets placement (visibility and order) through the parents named by `ref`, once per parent. */
  private async layout(steps: Step[], layout: NonNullable<ReconcileTraits["layout"]>): Promise<void> {
    const wanted = steps.filter(
      (s) =>
        s.layout &&
        (s.layout.isVisible !== undefined || s.layout.position !== undefined) &&
        !this.failed.has(s.action.address),
    );
    const items = wanted.map((s) => ({
      address: s.action.address,
      id: this.ids.get(s.action.address)!,
      parentId: this.ids.get(referencedAddress(s.desired!, layout.ref)!)!,
      ...s.layout,
    }));
    const failures = await layout.apply(this.ctx.client, items, this.ctx.concurrency);
    for (const [address, message] of failures) {
      const r = this.results.find((x) => x.address === address);
      if (r) Object.assign(r, { status: "failed", message: scrub(message, [...this.ctx.secrets]) });
      this.failed.add(address);
    }
  }
}

/** Applies the steps of `outcome`; returns the report (never throws for a failed step). */
export async function applyPlan(ctx: ApplyContext, outcome: PlanOutcome): Promise<ApplyReport> {
  const applier = new Applier(ctx, outcome);
  try {
    await applier.runAll();
  } finally {
    syncProtection(ctx.inventory, ctx.project.objects);
    await ctx.inventory.fold();
    await Promise.all(applier.reported);
  }
  // In the plan's order: each result's place looked up once, not at every comparison of the sort.
  const order = new Map(outcome.steps.map((s, i) => [s.action.address + " " + s.action.action, i]));
  const results = applier.results
    .map((r) => ({ r, at: order.get(r.address + " " + r.action) ?? 0 }))
    .sort((a, b) => a.at - b.at)
    .map((x) => x.r);
  const counts = { done: 0, failed: 0, skipped: 0 } as Record<ResultStatus, number>;
  for (const r of results) counts[r.status]++;
  return {
    version: REPORT_VERSION,
    project: ctx.project.project,
    target: ctx.project.target,
    ok: counts.failed === 0 && counts.skipped === 0,
    results,
    counts,
    published: applier.published.sort((a, b) => (a.address < b.address ? -1 : 1)),
  };
}
