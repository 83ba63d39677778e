/** Web-mercator (XYZ / slippy map) tile coordinates to lon/lat bounds. */
import type { RunTile } from "./types";

function lon(x: number, n: number): number {
  return (x / n) * 360 - 180;
}

function lat(y: number, n: number): number {
  return (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI;
}

/** The tile with its bounds `[west, south, east, north]` in degrees. */
export function tileBounds(z: number, x: number, y: number): RunTile {
  const n = 2 ** z;
  return { z, x, y, bounds: [lon(x, n), lat(y + 1, n), lon(x + 1, n), lat(y, n)] };
}
