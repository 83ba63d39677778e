/**
 * The bounded YAML parse every reader of the repository's YAML goes through: the file's size, its
 * nesting (checked while the parser builds its tree, before the composer recurses into it) and its
 * aliases ({@link resolveAliases}) have limits ({@link YAML_LIMITS}), a file holds one document, and
 * syntax errors are worded for the person who wrote the file, at the place to fix.
 */
import { Composer, Lexer, LineCounter, Parser, type Alias, type Document, type Node, type YAMLError } from "yaml";
import { resolveAliases } from "./yaml-aliases";
import { formatCount, YAML_LIMITS } from "./yaml-limits";

/** A parsed document with its aliases tied to their values, or why the text is refused (at `offset`). */
export type ParsedYaml =
  | { ok: true; doc: Document.Parsed; lines: LineCounter; aliases: ReadonlyMap<Alias, Node> }
  | { ok: false; lines: LineCounter; offset: number; message: string };

/** Keys may repeat (the readers report duplicates with both positions); `<<` is a plain key. */
const OPTIONS = { uniqueKeys: false, merge: false, prettyErrors: false } as const;
const COLLECTIONS = new Set(["block-map", "block-seq", "flow-collection"]);

/** Parses `text` as one YAML document within `limits`. Pure; never throws on any text. */
export function parseBoundedYaml(text: string, limits = YAML_LIMITS): ParsedYaml {
  const lines = new LineCounter();
  lines.addNewLine(0);
  const refuse = (offset: number, message: string): ParsedYaml => ({ ok: false, lines, offset, message });
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > limits.fileBytes) {
    return refuse(
      0,
      `the file is ${formatCount(bytes)} bytes, past the limit of ${formatCount(limits.fileBytes)} bytes for a YAML file`,
    );
  }
  const scan = new TokenScan(text, lines, limits.nesting);
  let docs: Document.Parsed[];
  try {
    docs = firstTwoDocuments(scan);
  } catch {
    // Not expected from any text (the nesting bound keeps the composer's recursion short); if the
    // parser fails anyway, the file is refused without the engine's words.
    return refuse(scan.offset, "YAML syntax error: the file could not be read as YAML");
  }
  if (scan.tooDeepAt !== undefined) {
    return refuse(scan.tooDeepAt, `lists and mappings nest deeper than the limit of ${limits.nesting} levels here`);
  }
  const [doc, second] = docs as [Document.Parsed, Document.Parsed | undefined];
  const error = doc.errors[0];
  if (error) return refuse(...syntaxError(error, scan.quoteStarts, text));
  if (second) return refuse(second.range[0], "a second YAML document starts here; write one YAML document per file");
  const aliases = resolveAliases(doc, limits);
  if (!aliases.ok) return refuse(aliases.problem.offset, aliases.problem.message);
  return { ok: true, doc, lines, aliases: aliases.targets };
}

/** Composes documents from the scan's tokens, stopping at the second one. */
function firstTwoDocuments(scan: TokenScan): Document.Parsed[] {
  const docs: Document.Parsed[] = [];
  for (const doc of new Composer(OPTIONS).compose(scan.tokens(), true, scan.length)) {
    docs.push(doc as Document.Parsed);
    if (docs.length === 2) break;
  }
  return docs;
}

/**
 * Feeds the lexer's tokens to the parser one by one (as `Parser.parse` does), watching the parser's
 * stack: the lists and mappings open at each token are the nesting at that point. Past the limit
 * the scan ends, so the composer never sees the document.
 */
class TokenScan {
  private readonly parser: Parser;
  /** Where each quoted scalar starts: an unclosed quote is reported where it opens. */
  readonly quoteStarts: number[] = [];
  tooDeepAt: number | undefined;

  constructor(
    private readonly text: string,
    lines: LineCounter,
    private readonly nesting: number,
  ) {
    this.parser = new Parser(lines.addNewLine);
  }

  get length(): number {
    return this.text.length;
  }

  get offset(): number {
    return this.parser.offset;
  }

  *tokens() {
    for (const lexeme of new Lexer().lex(this.text)) {
      const at = this.parser.offset;
      if (lexeme[0] === '"' || lexeme[0] === "'") this.quoteStarts.push(at);
      yield* this.parser.next(lexeme);
      if (this.parser.stack.length > this.nesting && this.depth() > this.nesting) {
        this.tooDeepAt = at;
        return;
      }
    }
    yield* this.parser.end();
  }

  private depth(): number {
    let n = 0;
    for (const token of this.parser.stack) if (COLLECTIONS.has(token.type)) n++;
    return n;
  }
}

/** The first syntax error, worded for the file's author: `[offset, message]`. */
function syntaxError(error: YAMLError, quoteStarts: readonly number[], text: string): [number, string] {
  const at = error.pos[0];
  if (error.code === "MISSING_CHAR" && /quote/.test(error.message)) {
    // The parser notices a missing closing quote where the text ends; the fix is where it opens.
    const open = quoteStarts.findLast((start) => start < at);
    if (open !== undefined)
      return [
        open,
        `YAML syntax error: the quote ${text[open]} opened here is never closed; expected a closing ${text[open]} after the text`,
      ];
  }
  return [at, `YAML syntax error: ${error.message.replace(/\s+at line \d+, column \d+.*$/s, "")}`];
}
