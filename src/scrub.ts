/**
 * Secret scrubbing: every error of the project ({@link SvcError}) and every result that carries
 * text from the repository or the platform is cleaned with these before it leaves the process.
 * Imports nothing.
 */

export const REDACTED = "[REDACTED]";

/** Replaces every occurrence of each secret in `text` (longest first, so overlaps are covered). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].filter((x) => x.length >= 4).sort((a, b) => b.length - a.length)) {
    if (out.includes(s)) out = out.split(s).join(REDACTED);
    const enc = encodeURIComponent(s);
    if (enc !== s && out.includes(enc)) out = out.split(enc).join(REDACTED);
  }
  return out;
}

/**
 * `value` with {@link scrub} applied to every string of its plain data (objects, arrays, strings),
 * keys included; other values (class instances, functions) are kept as they are. For results that
 * carry text from the repository, such as a UDF's code holding a secret value pasted into it.
 * Only what holds a secret is copied: without one, `value` itself is returned (an apply's result of
 * 10,000 creates was copied whole, 130 to 150 ms, on every run, since the token is a secret too).
 */
export function scrubDeep<T>(value: T, secrets: readonly string[]): T {
  const live = secrets.filter((x) => x.length >= 4);
  if (!live.length) return value;
  // What scrub replaces: each secret and its URL-encoded form.
  const forms = [...new Set(live.flatMap((x) => [x, encodeURIComponent(x)]))];
  const clean = (text: string) => (forms.some((f) => text.includes(f)) ? scrub(text, live) : text);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return clean(v);
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x = walk(v[i]);
        if (x !== v[i] && !out) out = v.slice(0, i);
        out?.push(x);
      }
      return out ?? v;
    }
    if (v === null || typeof v !== "object") return v;
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return v;
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    let copy: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const key = clean(k);
      const x = walk(o[k]);
      if (!copy && (key !== k || x !== o[k])) {
        copy = {};
        for (let j = 0; j < i; j++) copy[keys[j]!] = o[keys[j]!];
      }
      if (copy) copy[key] = x;
    }
    return copy ?? v;
  };
  return walk(value) as T;
}
