/**
 * Fault injection for testing clients and the reconciler: seeded, reproducible rates of error
 * answers, rate limits, connection resets, latency and lost responses.
 *
 * Spec syntax: comma-separated `name=value` pairs, e.g.
 * `seed=7,500=0.05,503=0.1,429=0.05,retry-after=1,reset=0.02,lost=0.1,latency=5-20,methods=POST|PUT,paths=/udf/`.
 * Rates are probabilities in [0, 1]; `latency` is milliseconds (`N` or `MIN-MAX`); `methods` and
 * `paths` (prefixes below `/v1`, `|`-separated) limit which requests are eligible; `after=N` skips
 * the first N eligible requests; `count=N` stops injecting after N faults.
 */
import { seededRandom } from "./seeded-random";
import { SvcError } from "../errors";

export interface FaultSpec {
  seed: number;
  error500: number;
  error502: number;
  error503: number;
  rate429: number;
  retryAfterSeconds: number;
  reset: number;
  lost: number;
  latencyMs: [number, number];
  methods?: string[];
  paths?: string[];
  after: number;
  count: number;
}

export type FaultAction =
  | { kind: "none" }
  | { kind: "status"; status: number; retryAfter?: number }
  | { kind: "reset" }
  | { kind: "lost" };

const KEYS = [
  "seed",
  "500",
  "502",
  "503",
  "429",
  "retry-after",
  "reset",
  "lost",
  "latency",
  "methods",
  "paths",
  "after",
  "count",
];

/** Parses a `--faults` spec; throws an Error naming the bad part and the expected form. */
export function parseFaultSpec(text: string): FaultSpec {
  const spec: FaultSpec = {
    seed: 1,
    error500: 0,
    error502: 0,
    error503: 0,
    rate429: 0,
    retryAfterSeconds: 1,
    reset: 0,
    lost: 0,
    latencyMs: [0, 0],
    after: 0,
    count: Number.POSITIVE_INFINITY,
  };
  for (const part of text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [key, value] = part.split("=", 2);
    if (!KEYS.includes(key) || value === undefined) {
      throw new SvcError(
        "fault_invalid",
        `Invalid fault "${part}". Expected name=value with name one of ${KEYS.join(", ")}.`,
      );
    }
    const rate = () => {
      const n = Number(value);
      if (!(n >= 0 && n <= 1))
        throw new SvcError("fault_invalid", `Invalid fault rate "${part}". A rate is a number from 0 to 1.`);
      return n;
    };
    const int = () => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0)
        throw new SvcError("fault_invalid", `Invalid fault "${part}". Expected a whole number.`);
      return n;
    };
    switch (key) {
      case "seed":
        spec.seed = int();
        break;
      case "500":
        spec.error500 = rate();
        break;
      case "502":
        spec.error502 = rate();
        break;
      case "503":
        spec.error503 = rate();
        break;
      case "429":
        spec.rate429 = rate();
        break;
      case "retry-after":
        spec.retryAfterSeconds = int();
        break;
      case "reset":
        spec.reset = rate();
        break;
      case "lost":
        spec.lost = rate();
        break;
      case "after":
        spec.after = int();
        break;
      case "count":
        spec.count = int();
        break;
      case "latency": {
        const m = /^(\d+)(?:-(\d+))?$/.exec(value);
        if (!m) throw new SvcError("fault_invalid", `Invalid fault "${part}". Expected latency=MS or latency=MIN-MAX.`);
        spec.latencyMs = [Number(m[1]), Number(m[2] ?? m[1])];
        break;
      }
      case "methods":
        spec.methods = value.split("|").map((m) => m.toUpperCase());
        break;
      case "paths":
        spec.paths = value.split("|");
        break;
    }
  }
  return spec;
}

/** Decides, request by request, which fault (if any) to inject. Same spec, same sequence. */
export class FaultInjector {
  private readonly random: () => number;
  private eligibleSeen = 0;
  private injected = 0;
  constructor(readonly spec: FaultSpec) {
    this.random = seededRandom(spec.seed);
  }

  static from(spec: string | FaultSpec | undefined): FaultInjector | undefined {
    if (!spec) return undefined;
    return new FaultInjector(typeof spec === "string" ? parseFaultSpec(spec) : spec);
  }

  /** Faults injected so far. */
  get count(): number {
    return this.injected;
  }

  latency(): number {
    const [lo, hi] = this.spec.latencyMs;
    return hi <= 0 ? 0 : lo + Math.floor(this.random() * (hi - lo + 1));
  }

  decide(method: string, path: string): FaultAction {
    const s = this.spec;
    if (s.methods && !s.methods.includes(method)) return { kind: "none" };
    if (s.paths && !s.paths.some((p) => path.startsWith(p))) return { kind: "none" };
    if (this.eligibleSeen++ < s.after || this.injected >= s.count) return { kind: "none" };
    const r = this.random();
    let edge = 0;
    const hit = (rate: number) => r < (edge += rate);
    let action: FaultAction = { kind: "none" };
    if (hit(s.error500)) action = { kind: "status", status: 500 };
    else if (hit(s.error502)) action = { kind: "status", status: 502 };
    else if (hit(s.error503)) action = { kind: "status", status: 503 };
    else if (hit(s.rate429)) action = { kind: "status", status: 429, retryAfter: s.retryAfterSeconds };
    else if (hit(s.reset)) action = { kind: "reset" };
    else if (hit(s.lost)) action = { kind: "lost" };
    if (action.kind !== "none") this.injected++;
    return action;
  }
}
