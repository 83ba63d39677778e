/**
 * The plan for a terminal, in the manner of `terraform plan`: one line per action with its
 * marker, the reason and field changes beneath, then what is left alone, what stops apply,
 * and a one-line summary. Pure and deterministic; colors only when asked for.
 */
import type { ActionType, PlannedAction, Plan } from "../plan/plan-model";
import { ACTION_WORDS, DISPLAY_ORDER } from "./action-words";
import { DIFF_COLORS, painter, type Paint } from "./ansi";
import { type BulkGroup, describeGroup, groupBulk, groupedCount } from "./bulk-groups";
import { diffLines } from "./diff-blocks";
import { policyTextLines } from "./policy-text";
import { cleanText, describeCreatedField, describeFieldChange, formatCount, oneLine } from "./values";

export interface PlanTextOptions {
  /** Wrap markers and notes in ANSI colors. @default false */
  color?: boolean;
  /** The command the plan is for, as its stops name it. @default "Apply" */
  command?: "Apply" | "Destroy" | "Rollback";
  /**
   * Show the actions of these types (without reason or notes) as one line per canvas, or per kind
   * for objects on no canvas, when {@link GROUP_MIN} or more share it; `hint` says, under the
   * list, how to see each object. @default every action on lines of its own
   */
  bulk?: { actions: readonly ActionType[]; hint: string };
}

/** Indentation of the lines beneath an action line. */
const DETAIL_INDENT = "      ";

/**
 * The lines beneath an action, without indentation: its reason (`# …`), its field changes,
 * and notes (`! …`). Secret fields show fingerprints only.
 */
export function actionDetailLines(a: PlannedAction): string[] {
  const lines: string[] = [];
  if (a.reason) lines.push(`# ${oneLine(a.reason)}`);
  // A create lists what it makes; any other action, what changes.
  const creates = a.action === "create" || a.action === "share";
  for (const f of a.fields) {
    lines.push(
      creates && f.from === undefined && f.fromFingerprint === undefined
        ? describeCreatedField(f)
        : describeFieldChange(f),
    );
    if (f.note) lines.push(`  ! ${oneLine(f.note)}`);
  }
  for (const note of a.notes) lines.push(`! ${oneLine(note)}`);
  return lines;
}

/** `  + create   canvas.sales (id cv_1)`, `  ~ rename   canvas.ops_reports → canvas.ops_weekly (id cv_2)`, without colors. */
export function actionLine(a: PlannedAction, paint: Paint = (_s, t) => t): string {
  const words = ACTION_WORDS[a.action];
  const marker = paint(words.color, `${words.symbol.padStart(3)} ${a.action.padEnd(8)}`);
  const address = a.movedFrom ? `${cleanText(a.movedFrom)} → ${cleanText(a.address)}` : cleanText(a.address);
  return `${marker} ${address}${a.id ? ` (id ${cleanText(a.id)})` : ""}`;
}

/** `  + create   canvas.sales and its 100 UDFs (u00000 … u00099)` */
function groupLine(group: BulkGroup<PlannedAction>, paint: Paint): string {
  const words = ACTION_WORDS[group.action];
  return `${paint(words.color, `${words.symbol.padStart(3)} ${group.action.padEnd(8)}`)} ${describeGroup(group)}`;
}

/**
 * The sentence a partial plan (`--only`) starts with, or undefined for a whole plan; `quote`
 * formats one pattern (plain text or Markdown code).
 */
export function partialSentence(plan: Plan, quote: (s: string) => string = (s) => s): string | undefined {
  if (!plan.partial) return undefined;
  const list = (xs: string[]) => xs.map((x) => quote(oneLine(x))).join(", ");
  const replaced = plan.partial.replace.length ? `; replaced on request: ${list(plan.partial.replace)}` : "";
  return `Partial plan (--only): only ${list(plan.partial.only)} and what they need${replaced}. Other objects were not planned; run plan without --only to see every change.`;
}

/** `Plan: 2 to create, 1 to update.` or the no-changes sentence. */
export function planSummaryLine(plan: Plan): string {
  const parts = DISPLAY_ORDER.filter((t) => (plan.summary[t] ?? 0) > 0).map(
    (t) => `${formatCount(plan.summary[t])} to ${t}`,
  );
  if (parts.length) return `Plan: ${parts.join(", ")}.`;
  // Objects kept while prune is off differ from the repository: "matches" would not be true.
  const kept = plan.orphans.length;
  return kept
    ? `No changes. ${formatCount(kept)} ${kept > 1 ? "objects that left the repository are" : "object that left the repository is"} kept on the platform (prune is off).`
    : "No changes. The platform matches the repository.";
}

/**
 * Renders a plan for the terminal.
 * @example
 * ```
 * Plan for sales (default)
 *
 *   + create   canvas.sales
 *   ~ update   canvas.reports (id cv_2)
 *       accessScope: "team" → "public"
 *   ~ update   udf.reports/weekly (id udf_7)
 *       code: changed (+1 −1 lines)
 *       --- code (platform)
 *       +++ code (repository)
 *       @@ -1,2 +1,2 @@
 *        def udf():
 *       -    return 1
 *       +    return 2
 *
 * Plan: 1 to create, 2 to update.
 * ```
 */
export function renderPlanText(plan: Plan, opts: PlanTextOptions = {}): string {
  const paint = painter(opts.color);
  const out: string[] = [paint("bold", `Plan for ${oneLine(plan.project)} (${oneLine(plan.target)})`), ""];
  const partial = partialSentence(plan);
  if (partial) out.push(paint("yellow", partial), "");

  const bulk = opts.bulk;
  const shown = groupBulk(
    plan.actions,
    (a) => !!bulk?.actions.includes(a.action) && !a.reason && !a.notes.length && !a.movedFrom,
  );
  for (const s of shown) {
    if ("group" in s) {
      out.push(groupLine(s.group, paint));
      continue;
    }
    const a = s.one;
    out.push(actionLine(a, paint));
    for (const line of actionDetailLines(a)) out.push(DETAIL_INDENT + paintDetail(line, paint));
    for (const d of diffLines(a.fields))
      out.push(DETAIL_INDENT + (DIFF_COLORS[d.style] ? paint(DIFF_COLORS[d.style]!, d.line) : d.line));
  }
  if (plan.actions.length > 0) out.push("");
  const grouped = groupedCount(shown);
  if (bulk && grouped > 0) out.push(paint("dim", `${formatCount(grouped)} objects shown in groups; ${bulk.hint}.`), "");

  out.push(...section("Kept, prune is off — run with --prune to delete:", capped(plan.orphans.map(withId))));
  out.push(...section("Not managed by this project (left alone):", plan.unmanaged.map(withId)));
  out.push(
    ...section(
      "Warnings:",
      plan.warnings.map((w) => paint("yellow", `! ${oneLine(w)}`)),
    ),
  );
  if (plan.policy) out.push(...policyTextLines(plan.policy, paint));
  for (const b of plan.blocks) {
    // A policy block's lines are the results listed above: its last line says how many.
    const message = b.rule === "policy" ? (b.message.split("\n").pop() ?? b.message) : b.message;
    out.push(paint("red", `${opts.command ?? "Apply"} will stop: ${oneLine(message)} [${oneLine(b.rule)}]`));
  }
  if (plan.blocks.length > 0) out.push("");

  out.push(paint("bold", planSummaryLine(plan)));
  return out.join("\n") + "\n";
}

function paintDetail(line: string, paint: Paint): string {
  if (line.startsWith("#")) return paint("dim", line);
  if (line.trimStart().startsWith("!")) return paint("yellow", line);
  return line;
}

function withId(o: { address: string; id: string }): string {
  return `${cleanText(o.address)} (id ${cleanText(o.id)})`;
}

/** Objects the plan leaves alone, listed up to this many: a canvas folder deleted by hand must not bury the changes. */
const KEPT_SHOWN = 20;

function capped(items: string[]): string[] {
  if (items.length <= KEPT_SHOWN) return items;
  return [
    ...items.slice(0, KEPT_SHOWN),
    `… and ${formatCount(items.length - KEPT_SHOWN)} more (svc-iac plan --json lists every one)`,
  ];
}

function section(title: string, items: string[]): string[] {
  return items.length === 0 ? [] : [title, ...items.map((i) => `  ${i}`), ""];
}
