/**
 * A UDF's JSON result as a terminal table: a list of records (a DataFrame as JSON), a GeoJSON
 * FeatureCollection (its features' properties and geometry type), a list of rows, or one object
 * (as field / value). Anything else is printed as compact JSON. Pure.
 *
 * The result comes from the platform: every cell is one line with control characters replaced,
 * so no escape sequence reaches the terminal; cells and rows are bounded.
 */
import { cleanText, formatCount, oneLine } from "../render/values";

/** Widest cell, in characters. */
export const MAX_CELL = 40;
/** Most rows printed; the rest are counted. */
export const MAX_ROWS = 200;

/** Rows under column names, or undefined when the value is not tabular. */
export function tableOf(value: unknown): { columns: string[]; rows: unknown[][] } | undefined {
  const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
  if (isObject(value) && value.type === "FeatureCollection" && Array.isArray(value.features)) {
    const records = value.features.map((f) => {
      const feature = isObject(f) ? f : {};
      const geometry = isObject(feature.geometry) ? feature.geometry.type : null;
      return { ...(isObject(feature.properties) ? feature.properties : {}), geometry };
    });
    return recordsTable(records);
  }
  if (Array.isArray(value) && value.length > 0 && value.every(isObject)) return recordsTable(value);
  if (Array.isArray(value) && value.length > 0 && value.every(Array.isArray)) {
    const width = Math.max(...value.map((r) => r.length));
    return {
      columns: Array.from({ length: width }, (_, i) => String(i)),
      rows: value.map((r) => Array.from({ length: width }, (_, i) => r[i])),
    };
  }
  if (isObject(value)) return { columns: ["field", "value"], rows: Object.entries(value).map(([k, v]) => [k, v]) };
  return undefined;
}

function recordsTable(records: Record<string, unknown>[]): { columns: string[]; rows: unknown[][] } {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const r of records) for (const k of Object.keys(r)) if (!seen.has(k)) seen.add(k), columns.push(k);
  return { columns, rows: records.map((r) => columns.map((c) => r[c])) };
}

/** One cell: strings as they are, other values as compact JSON; one line, at most {@link MAX_CELL} characters. */
function cell(v: unknown): string {
  const text = v === undefined ? "" : typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
  const line = [...oneLine(text)];
  return line.length > MAX_CELL ? `${line.slice(0, MAX_CELL - 1).join("")}…` : line.join("");
}

const width = (s: string) => [...s].length;
const pad = (s: string, n: number, right: boolean) =>
  right ? " ".repeat(n - width(s)) + s : s + " ".repeat(n - width(s));

/** The result as a table with a header rule; numbers right-aligned; past {@link MAX_ROWS} rows, a count of the rest. */
export function renderResultTable(value: unknown): string {
  const table = tableOf(value);
  if (!table) return `${cleanText(JSON.stringify(value) ?? String(value))}\n`;
  const shown = table.rows.slice(0, MAX_ROWS);
  const head = table.columns.map(cell);
  const body = shown.map((r) => r.map(cell));
  const numeric = table.columns.map(
    (_, i) => shown.length > 0 && shown.every((r) => typeof r[i] === "number" || r[i] === null || r[i] === undefined),
  );
  const widths = head.map((h, i) => Math.max(width(h), ...body.map((r) => width(r[i]!))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => pad(c, widths[i]!, numeric[i]!))
      .join("  ")
      .trimEnd();
  const out = [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)];
  const more = table.rows.length - shown.length;
  if (more > 0)
    out.push(`… ${formatCount(more)} more row${more === 1 ? "" : "s"} (--format json or csv prints them all)`);
  return `${out.join("\n")}\n`;
}
