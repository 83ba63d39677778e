/**
 * How a UDF test's `expect:` is compared with the JSON result of the run (pure).
 *
 * - A mapping matches a mapping (JSON object) that has each of its keys with a matching value,
 *   recursively; other keys of the result are ignored (a subset).
 * - A list matches a list of the same length whose items are equal, position by position
 *   (exactly: a mapping inside a list must equal the result's item, no extra keys).
 * - Strings, booleans and null match when equal; numbers when equal in value (`1` matches `1.0`).
 */

/** One difference between what a test expects and what the run returned. */
export interface Mismatch {
  /** JSONPath-like location in the result: `$`, `$.meta.lang`, `$.rows[2]`. */
  path: string;
  /** What was expected there, and what was found ("missing" when the key is absent). */
  message: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

const childPath = (path: string, key: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;

/** A value for messages: JSON, shortened. */
export function show(value: unknown, max = 80): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (isObject(v)) return "a mapping";
  return `a ${typeof v}`;
}

/** Deep equality of JSON values (arrays and objects whole). */
function equal(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
  }
  return a === b;
}

/** Every difference of `actual` from `expected` (empty: the test passes). */
export function expectMismatches(expected: unknown, actual: unknown, path = "$"): Mismatch[] {
  if (isObject(expected)) {
    if (!isObject(actual))
      return [
        {
          path,
          message: `expected a mapping with ${show(Object.keys(expected))}, found ${kindOf(actual)} ${show(actual)}`,
        },
      ];
    return Object.keys(expected)
      .sort()
      .flatMap((k) => {
        const at = childPath(path, k);
        if (!Object.hasOwn(actual, k))
          return [
            {
              path: at,
              message: `expected ${show(expected[k])}, found no such key (the result has ${show(Object.keys(actual).sort())})`,
            },
          ];
        return expectMismatches(expected[k], actual[k], at);
      });
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual))
      return [{ path, message: `expected a list ${show(expected)}, found ${kindOf(actual)} ${show(actual)}` }];
    if (actual.length !== expected.length) {
      return [
        {
          path,
          message: `expected ${expected.length} item${expected.length === 1 ? "" : "s"} ${show(expected)}, found ${actual.length} ${show(actual)}`,
        },
      ];
    }
    const i = expected.findIndex((x, n) => !equal(x, actual[n]));
    return i < 0
      ? []
      : [
          {
            path: `${path}[${i}]`,
            message: `expected ${show(expected[i])}, found ${show(actual[i])} (items of a list must be equal)`,
          },
        ];
  }
  if (equal(expected, actual)) return [];
  return [{ path, message: `expected ${show(expected)}, found ${show(actual)}` }];
}
