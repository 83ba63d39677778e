/**
 * The spatial selectors of spec 4.11 over an H3-indexed dataset: each becomes (a) ranges of cell
 * ids at the dataset's resolution, checked against each row group's recorded cell range so only
 * row groups that can match are read, and (b) an exact test of one row.
 *
 * Cells at one resolution sort by their 64-bit id as base cell, then digit by digit, so a coarser
 * cell's descendants at the dataset's resolution are one contiguous id range: first child to last.
 * Ids are kept as 16 hex digits, so text order is numeric order.
 */
import {
  POLYGON_TO_CELLS_FLAGS,
  cellToCenterChild,
  cellToChildrenSize,
  cellToLatLng,
  cellToParent,
  childPosToCell,
  getHexagonAreaAvg,
  getResolution,
  gridDisk,
  latLngToCell,
  polygonToCellsExperimental,
} from "h3-js";

export type SpatialSelector =
  | { kind: "bbox"; minLng: number; minLat: number; maxLng: number; maxLat: number }
  | { kind: "point"; lat: number; lng: number }
  | { kind: "cell"; cell: string }
  | { kind: "hex"; min: string; max: string };

/** An inclusive range of cell ids, 16 hex digits each. */
export interface CellRange {
  min: string;
  max: string;
}

/** A row's position: its H3 cell at the dataset's resolution and its lat/lng (the cell's center when the dataset has none). */
export interface RowPosition {
  cell: string;
  lat: number;
  lng: number;
}

export const pad16 = (hex: string) => hex.toLowerCase().padStart(16, "0");

/** Most coarse cells a bounding box is covered with before pruning gives up and reads everything. */
const MAX_COVER_CELLS = 400;

/** The ranges of cell ids (at `res`) a selector can match. */
export function cellRanges(sel: SpatialSelector, res: number): CellRange[] {
  switch (sel.kind) {
    case "point": {
      const c = pad16(latLngToCell(sel.lat, sel.lng, res));
      return [{ min: c, max: c }];
    }
    case "hex":
      return [{ min: pad16(sel.min), max: pad16(sel.max) }];
    case "cell": {
      const r = getResolution(sel.cell);
      if (r > res) {
        const p = pad16(cellToParent(sel.cell, res));
        return [{ min: p, max: p }];
      }
      return [descendants(sel.cell, res)];
    }
    case "bbox":
      return bboxRanges(sel, res);
  }
}

function descendants(cell: string, res: number): CellRange {
  const r = getResolution(cell);
  if (r === res) return { min: pad16(cell), max: pad16(cell) };
  const last = childPosToCell(cellToChildrenSize(cell, res) - 1, cell, res);
  return { min: pad16(cellToCenterChild(cell, res)), max: pad16(last) };
}

/**
 * Covers the box with the finest cells (at most the dataset's resolution) that stay under
 * {@link MAX_COVER_CELLS}, plus their neighbours: a row's cell descends from a coarse cell that
 * contains the row or borders the one that does, since H3 children overhang their parent slightly.
 */
function bboxRanges(b: Extract<SpatialSelector, { kind: "bbox" }>, res: number): CellRange[] {
  const everything = [{ min: pad16("0"), max: "ffffffffffffffff" }];
  if (b.maxLng - b.minLng > 90 || b.maxLat - b.minLat > 60) return everything;
  const midLat = ((b.minLat + b.maxLat) / 2) * (Math.PI / 180);
  const km2 = Math.max((b.maxLat - b.minLat) * 111.32 * ((b.maxLng - b.minLng) * 111.32 * Math.cos(midLat)), 1e-9);
  let k = res;
  while (k > 0 && km2 / getHexagonAreaAvg(k, "km2") > MAX_COVER_CELLS / 4) k--;
  const polygon = [
    [b.minLat, b.minLng],
    [b.minLat, b.maxLng],
    [b.maxLat, b.maxLng],
    [b.maxLat, b.minLng],
  ];
  const cover = new Set<string>(polygonToCellsExperimental(polygon, k, POLYGON_TO_CELLS_FLAGS.containmentOverlapping));
  cover.add(latLngToCell((b.minLat + b.maxLat) / 2, (b.minLng + b.maxLng) / 2, k));
  const withNeighbours = new Set<string>();
  for (const c of cover) for (const n of gridDisk(c, 1)) withNeighbours.add(n);
  return mergeRanges([...withNeighbours].map((c) => descendants(c, res)));
}

/** Sorted, non-overlapping ranges. */
export function mergeRanges(ranges: CellRange[]): CellRange[] {
  const sorted = [...ranges].sort((a, b) => (a.min < b.min ? -1 : a.min > b.min ? 1 : 0));
  const out: CellRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.min <= last.max) {
      if (r.max > last.max) last.max = r.max;
    } else out.push({ ...r });
  }
  return out;
}

/** True when `[min, max]` overlaps one of the sorted ranges. */
export function rangeOverlaps(ranges: CellRange[], min: string, max: string): boolean {
  let lo = 0,
    hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid];
    if (r.max < min) lo = mid + 1;
    else if (r.min > max) hi = mid - 1;
    else return true;
  }
  return false;
}

/** The exact test of one row against a selector (`res` is the dataset's resolution). */
export function rowMatcher(sel: SpatialSelector, res: number): (row: RowPosition) => boolean {
  switch (sel.kind) {
    case "bbox":
      return (p) => p.lat >= sel.minLat && p.lat <= sel.maxLat && p.lng >= sel.minLng && p.lng <= sel.maxLng;
    case "point": {
      const cell = latLngToCell(sel.lat, sel.lng, res);
      return (p) => p.cell === cell;
    }
    case "hex": {
      const min = BigInt(`0x${sel.min}`),
        max = BigInt(`0x${sel.max}`);
      return (p) => {
        const id = BigInt(`0x${p.cell}`);
        return id >= min && id <= max;
      };
    }
    case "cell": {
      const r = getResolution(sel.cell);
      const cell = sel.cell.toLowerCase();
      if (r === res) return (p) => p.cell === cell;
      if (r < res) return (p) => cellToParent(p.cell, r) === cell;
      return (p) => latLngToCell(p.lat, p.lng, r) === cell;
    }
  }
}

/** A row's position from its cell alone. */
export function positionOfCell(cell: string): RowPosition {
  const [lat, lng] = cellToLatLng(cell);
  return { cell, lat, lng };
}
