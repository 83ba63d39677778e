/**
 * The oldest Node the package runs on, checked before any command loads: an older Node would fail
 * later with a message about a missing built-in (`node:sqlite`) or a dependency's syntax. Loaded by
 * every run, so it holds one comparison and imports nothing.
 */

/**
 * The oldest supported Node: the highest of what the dependencies' `engines` ask (undici 8 needs
 * 22.19) and what the package uses (`node:sqlite` without a flag, 22.13). `engines.node` in
 * package.json says the same (a test compares them).
 */
export const MIN_NODE_VERSION = "22.19.0";

/** `[major, minor, patch]` of `v22.19.0` or `22.19`. */
const parts = (version: string): number[] =>
  version
    .replace(/^v/, "")
    .split(".")
    .map((n) => Number.parseInt(n, 10) || 0);

/** Whether `found` (as `process.version`) is at least `needed`. */
export function isAtLeast(found: string, needed: string): boolean {
  const [a, b] = [parts(found), parts(needed)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

/** The one line an unsupported Node gets, or undefined on a supported one. */
export function nodeVersionProblem(found: string = process.version): string | undefined {
  if (isAtLeast(found, MIN_NODE_VERSION)) return undefined;
  return `svc-iac: needs Node.js ${MIN_NODE_VERSION} or newer; this is Node.js ${found.replace(/^v/, "")} (${process.execPath}). Install a newer Node (nodejs.org, or nvm install 22).\n`;
}
