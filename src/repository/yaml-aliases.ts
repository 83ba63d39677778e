/**
 * Resolves a parsed document's aliases once, in one walk, before any reader expands them. Each
 * alias (`*name`) is tied to the anchor (`&name`) written last before it; an alias inside the
 * value it names (a cycle), an alias naming no anchor, aliases repeating more than
 * {@link YAML_LIMITS.aliasedValues} values or {@link YAML_LIMITS.aliasedCharacters} characters of
 * text in total, and an alias that nests the document deeper
 * than {@link YAML_LIMITS.nesting} are refused at the alias. After that, readers may expand aliases
 * freely: what they can expand is bounded.
 */
import { SvcError } from "../errors";
import { isAlias, isMap, isPair, isScalar, isSeq, type Alias, type Document, type Node } from "yaml";
import { formatCount, YAML_LIMITS } from "./yaml-limits";

/** Where an alias problem is (an offset into the text) and what it is. */
export interface AliasProblem {
  offset: number;
  message: string;
}

export type ResolvedAliases = { ok: true; targets: ReadonlyMap<Alias, Node> } | { ok: false; problem: AliasProblem };

/** What a value weighs once its aliases are expanded. */
interface Weight {
  /** Values in it: itself, and every key, item and value inside, aliases counted as what they repeat. */
  size: number;
  /** Characters of text in it: strings, and other scalars as written. */
  chars: number;
  /** Lists and mappings inside each other in it, itself included (0 for a scalar). */
  height: number;
}

class Refused extends SvcError {
  constructor(readonly problem: AliasProblem) {
    super("yaml_aliases_refused", problem.message);
  }
}

/** Ties every alias of `doc` to its anchored value, or says why the document is refused. */
export function resolveAliases(doc: Document.Parsed, limits = YAML_LIMITS): ResolvedAliases {
  const walk = new AliasWalk(limits);
  try {
    walk.weigh(doc.contents as Node | null, 0);
  } catch (e) {
    if (e instanceof Refused) return { ok: false, problem: e.problem };
    throw e;
  }
  return { ok: true, targets: walk.targets };
}

/**
 * A depth-first walk in document order. Recursion is safe: the parser refused documents nested
 * deeper than the limit, and aliases are not followed (their target's weight is already known).
 */
class AliasWalk {
  readonly targets = new Map<Alias, Node>();
  private readonly anchors = new Map<string, Node>();
  private readonly weights = new Map<Node, Weight>();
  /** Anchored values whose walk has begun and not ended: an alias to one of them is inside it. */
  private readonly open = new Set<Node>();
  private repeated = 0;
  private repeatedChars = 0;

  constructor(private readonly limits: typeof YAML_LIMITS) {}

  /** The weight of `node`, found at `depth` lists and mappings inside the document. */
  weigh(node: unknown, depth: number): Weight {
    if (node === null || node === undefined) return { size: 0, chars: 0, height: 0 };
    if (isAlias(node)) return this.alias(node, depth);
    if (isPair(node)) {
      const key = this.weigh(node.key, depth);
      const value = this.weigh(node.value, depth);
      return {
        size: key.size + value.size,
        chars: key.chars + value.chars,
        height: Math.max(key.height, value.height),
      };
    }
    const anchored = (node as Node).anchor;
    if (anchored) {
      this.anchors.set(anchored, node as Node);
      this.open.add(node as Node);
    }
    let weight: Weight = { size: 1, chars: isScalar(node) ? textLength(node.value, node.source) : 0, height: 0 };
    if (isMap(node) || isSeq(node)) {
      for (const item of node.items) {
        const w = this.weigh(item, depth + 1);
        weight = {
          size: weight.size + w.size,
          chars: weight.chars + w.chars,
          height: Math.max(weight.height, w.height),
        };
      }
      weight.height += 1;
    }
    if (anchored) {
      this.open.delete(node as Node);
      this.weights.set(node as Node, weight);
    }
    return weight;
  }

  private alias(alias: Alias, depth: number): Weight {
    const name = alias.source;
    const offset = alias.range?.[0] ?? 0;
    const target = this.anchors.get(name);
    if (!target)
      throw new Refused({
        offset,
        message: `the alias *${name} names no anchor: expected &${name} on a value written before it`,
      });
    if (this.open.has(target)) {
      throw new Refused({
        offset,
        message: `the alias *${name} is inside the value it repeats (&${name}), so it would repeat itself forever; an alias must name a value that ends before it`,
      });
    }
    const weight = this.weights.get(target)!;
    this.repeated += weight.size;
    if (this.repeated > this.limits.aliasedValues) {
      throw new Refused({
        offset,
        message: `the alias *${name} takes the values repeated by aliases in this file past the limit of ${formatCount(this.limits.aliasedValues)} (it repeats ${formatCount(weight.size)}); write the values out, or repeat fewer`,
      });
    }
    this.repeatedChars += weight.chars;
    if (this.repeatedChars > this.limits.aliasedCharacters) {
      throw new Refused({
        offset,
        message: `the alias *${name} takes the text repeated by aliases in this file past the limit of ${formatCount(this.limits.aliasedCharacters)} characters (it repeats ${formatCount(weight.chars)}); write the text out, or repeat it less`,
      });
    }
    if (depth + weight.height > this.limits.nesting) {
      throw new Refused({
        offset,
        message: `the alias *${name} nests lists and mappings ${formatCount(depth + weight.height)} deep, past the limit of ${this.limits.nesting} levels`,
      });
    }
    this.targets.set(alias, target);
    return weight;
  }
}

/** A scalar's characters: a string's own, any other value's as written. */
function textLength(value: unknown, source: string | undefined): number {
  return typeof value === "string" ? value.length : (source ?? String(value)).length;
}
