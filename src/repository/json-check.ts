/**
 * A JSON document checked as a repository file (a widget's code): the first syntax error at its
 * 1-based line and column, or a nesting deeper than the bound. The document is only checked; the
 * text itself is what reaches the platform, byte for byte. (`JSON.parse` names no position for
 * most errors, and quotes the document in its message: this scanner says where, and quotes
 * nothing but the character found.)
 */

/** How deep a JSON document may nest (arrays and objects). */
export const JSON_MAX_DEPTH = 256;

export interface JsonProblem {
  line: number;
  column: number;
  message: string;
}

/** The 1-based line and column of UTF-16 offset `at` in `text`. */
export function positionOf(text: string, at: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: at - start + 1 };
}

class Stop {
  constructor(
    readonly at: number,
    readonly message: string,
  ) {}
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;

/** Scans one JSON document; throws {@link Stop} at the first problem. */
class Scanner {
  i = 0;
  constructor(
    readonly text: string,
    /** When given, the offset of every value by its path (`/job_config/steps/0`; "" for the document). */
    readonly offsets?: Map<string, number>,
  ) {}

  found(): string {
    if (this.i >= this.text.length) return "the end of the file";
    const c = this.text.codePointAt(this.i)!;
    return c < 0x20 || c === 0x7f
      ? `character U+${c.toString(16).toUpperCase().padStart(4, "0")}`
      : `"${String.fromCodePoint(c)}"`;
  }
  fail(expected: string): never {
    throw new Stop(this.i, `found ${this.found()}, expected ${expected}`);
  }
  space(): void {
    while (this.i < this.text.length && " \t\n\r".includes(this.text[this.i]!)) this.i++;
  }
  value(depth: number, at = ""): void {
    this.space();
    this.offsets?.set(at, this.i);
    const c = this.text[this.i];
    if (c === "{" || c === "[") {
      if (depth >= JSON_MAX_DEPTH)
        throw new Stop(
          this.i,
          `found JSON nested deeper than ${JSON_MAX_DEPTH} levels, expected at most ${JSON_MAX_DEPTH}`,
        );
      const close = c === "{" ? "}" : "]";
      this.i++;
      this.space();
      if (this.text[this.i] === close) {
        this.i++;
        return;
      }
      for (let index = 0; ; index++) {
        let member = String(index);
        if (c === "{") {
          this.space();
          if (this.text[this.i] !== '"') this.fail('a member name in double quotes, e.g. "type"');
          const start = this.i;
          this.string();
          if (this.offsets) member = JSON.parse(this.text.slice(start, this.i)) as string;
          this.space();
          if (this.text[this.i] !== ":") this.fail('":" after the member name');
          this.i++;
        }
        this.value(depth + 1, `${at}/${member}`);
        this.space();
        if (this.text[this.i] === ",") {
          this.i++;
          continue;
        }
        if (this.text[this.i] === close) {
          this.i++;
          return;
        }
        this.fail(`"," or "${close}"`);
      }
    }
    if (c === '"') return this.string();
    for (const re of [NUMBER, LITERAL]) {
      re.lastIndex = this.i;
      if (re.test(this.text)) {
        this.i = re.lastIndex;
        return;
      }
    }
    this.fail("a JSON value (an object, list, string, number, true, false or null)");
  }
  string(): void {
    this.i++;
    while (this.i < this.text.length) {
      const c = this.text.charCodeAt(this.i);
      if (c === 34) {
        this.i++;
        return;
      }
      if (c < 0x20) this.fail('a character of the string or its closing "; control characters are written escaped');
      if (c === 92) {
        const e = this.text[this.i + 1];
        if (e !== undefined && '"\\/bfnrt'.includes(e)) this.i += 2;
        else if (e === "u" && /^[0-9A-Fa-f]{4}$/.test(this.text.slice(this.i + 2, this.i + 6))) this.i += 6;
        else {
          this.i++;
          this.fail('an escape: \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX');
        }
      } else this.i++;
    }
    this.fail('the closing " of the string');
  }
}

/**
 * The first problem of `text` as JSON, or undefined when it is one JSON document within the bounds.
 * `offsets`, when given, is filled with the UTF-16 offset of each value by its path (`/a/0/b`).
 */
export function jsonProblem(text: string, offsets?: Map<string, number>): JsonProblem | undefined {
  const s = new Scanner(text, offsets);
  try {
    s.space();
    if (s.i >= text.length) return { line: 1, column: 1, message: "found an empty file, expected a JSON document" };
    s.value(0);
    s.space();
    if (s.i < text.length) s.fail("the end of the document (one JSON value per file)");
    return undefined;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    return { ...positionOf(text, e.at), message: e.message };
  }
}
