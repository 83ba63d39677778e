/**
 * Text from the platform, the repository or the inventory (names, ids, addresses, error details)
 * as inert Markdown: whatever it holds, it renders as the characters it is and never as an
 * `@mention` (which notifies), an issue reference, a link, an autolink, an image (a tracking
 * pixel), HTML or formatting. Three places, three escapes:
 *
 * - {@link markdownText}: Markdown inline text (list items, paragraphs, quotes, table cells);
 * - {@link htmlText}: inside HTML elements (`<summary>`), where Markdown is not parsed;
 * - {@link code}: a code span, where nothing but backticks and line breaks needs care.
 *
 * Mentions and references are found by GitHub after rendering, in the text itself, so escaping
 * cannot stop them: a zero-width space after `@` and `#` breaks them without changing what is read.
 */
import { oneLine } from "./values";

const ZWSP = "\u200b";

/** `@name` mentions, `#12` / `GH-12` references, `https://` and `www.` autolinks: broken by a zero-width space. */
function breakAutolinks(s: string): string {
  return s
    .replace(/@/g, `@${ZWSP}`)
    .replace(/#(?=\d)/g, `#${ZWSP}`)
    .replace(/\b(gh)-(?=\d)/gi, `$1-${ZWSP}`)
    .replace(/:\/\//g, `:${ZWSP}//`)
    .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}${ZWSP}.`);
}

/** Punctuation that opens a link, an image, HTML, an entity, emphasis, code or a table cell (CommonMark lets any be backslash-escaped). */
const MARKDOWN_PUNCTUATION = /[\\`*_{}[\]()#+!|<>~&]/g;
/** What would open a list, a quote or a heading at the start of the text (`- x`, `1. x`, `> x`, `# x`). */
const BLOCK_START = /^(\s*)(-|\d+(?=[.)]))/;

/**
 * One line of inline Markdown showing `s` as it is: line breaks as ` ⏎ `, control characters as
 * `?`, Markdown punctuation backslash-escaped, mentions, references and autolinks broken.
 * @example
 * markdownText("@octocat [x](https://e.example) <b>") // "@\u200boctocat \[x\]\(https:\u200b//e.example\) \<b\>"
 */
export function markdownText(s: string): string {
  return breakAutolinks(oneLine(s))
    .replace(MARKDOWN_PUNCTUATION, (c) => `\\${c}`)
    .replace(BLOCK_START, (_m, space: string, mark: string) => (mark === "-" ? `${space}\\-` : `${space}${mark}\\`));
}

/**
 * One line of text inside an HTML element (`<summary>…</summary>`), where Markdown is not parsed:
 * HTML-escaped (and `|`, which would end a table cell), mentions and references broken.
 */
export function htmlText(s: string): string {
  // Broken first: the entities written next hold `#` and digits.
  return breakAutolinks(oneLine(s))
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/\|/g, "&#124;");
}

/**
 * A code span holding `s` on one line: the delimiter is a backtick run longer than any inside, so
 * no backtick can end it early, and line breaks (which would end the line it stands on) are shown
 * as ` ⏎ `. Inside a code span GitHub finds no mention, link or HTML.
 */
export function code(s: string): string {
  const one = oneLine(s);
  const longest = Math.max(0, ...(one.match(/`+/g) ?? []).map((r) => r.length));
  const ticks = "`".repeat(longest + 1);
  const pad = one.startsWith("`") || one.endsWith("`") ? " " : "";
  return `${ticks}${pad}${one}${pad}${ticks}`;
}

/** The HTML svc-iac's own Markdown uses (collapsible sections, bold, small print, code). */
const OUR_TAG = /^<\/?(details|summary|b|sub|code|br)( open)?\s*\/?>/i;
/** A fence opening or closing a code block: three or more backticks or tildes, indented at most three spaces. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * A Markdown document that came from elsewhere (a check run's summary, which any app may write)
 * made inert line by line, keeping the structure svc-iac's own renderers produce: outside code
 * blocks and code spans, HTML other than `details`, `summary`, `b`, `sub`, `code` and `br` is
 * shown as text, `@mentions` and `#12` references are broken, images are shown as text, and links
 * lead only to URLs that start with one of `linkPrefixes` (others are shown as text). A code block
 * left open is closed, so it cannot swallow what follows the document.
 * @example
 * inertMarkdown("@octocat <img src=x onerror=alert(1)> [click](https://evil.example)")
 * // "@\u200boctocat &lt;img src=x onerror=alert(1)> [click]\(https://evil.example)"
 */
export function inertMarkdown(md: string, linkPrefixes: readonly string[] = []): string {
  let fence: string | undefined;
  const out = md.split("\n").map((line) => {
    const m = FENCE.exec(line);
    if (fence) {
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = undefined;
      return line;
    }
    if (m) {
      fence = m[1]!;
      return line;
    }
    return inertLine(line, linkPrefixes);
  });
  return out.join("\n") + (fence ? `\n${fence}` : "");
}

/** One line outside code blocks: code spans kept as they are, everything else through {@link inertText}. */
function inertLine(line: string, linkPrefixes: readonly string[]): string {
  let out = "";
  let i = 0;
  while (i < line.length) {
    const open = /`+/.exec(line.slice(i));
    if (!open) break;
    const start = i + open.index;
    const ticks = open[0];
    const close = new RegExp(`(?<!\`)${ticks}(?!\`)`).exec(line.slice(start + ticks.length));
    if (!close) {
      out += inertText(line.slice(i, start + ticks.length), linkPrefixes);
      i = start + ticks.length;
      continue;
    }
    const end = start + ticks.length + close.index + ticks.length;
    out += inertText(line.slice(i, start), linkPrefixes) + line.slice(start, end);
    i = end;
  }
  return out + inertText(line.slice(i), linkPrefixes);
}

function inertText(s: string, linkPrefixes: readonly string[]): string {
  return s
    .replace(/<[^<]*/g, (m, offset: number) => (OUR_TAG.test(m) || s[offset - 1] === "\\" ? m : `&lt;${m.slice(1)}`))
    .replace(/@(?=[A-Za-z0-9])/g, `@${ZWSP}`)
    .replace(/#(?=\d)/g, `#${ZWSP}`)
    .replace(/\b(gh)-(?=\d)/gi, `$1-${ZWSP}`)
    .replace(/!\[/g, "!\\[")
    .replace(/\]\(([^)\s]*)/g, (m, url: string) => (linkPrefixes.some((p) => url.startsWith(p)) ? m : `]\\(${url}`));
}
