/**
 * Hidden HTML-comment markers that identify what svc-iac wrote on GitHub. A comment or issue is
 * found again by its marker, never by its heading: headings are for people and change wording,
 * markers are for the program and do not.
 */
import { createHash } from "node:crypto";

/** Keeps a marker one well-formed HTML comment whatever the project or target is called. */
function markerValue(s: string): string {
  return s.replace(/[^A-Za-z0-9._/-]/g, "_");
}

/** `<!-- svc-iac:plan project=listings target=prod -->`: the first line of the plan comment. */
export function planMarker(project: string, target: string): string {
  return `<!-- svc-iac:plan project=${markerValue(project)} target=${markerValue(target)} -->`;
}

/** `<!-- svc-iac:drift project=listings target=prod -->`: the first line of the drift issue. */
export function driftMarker(project: string, target: string): string {
  return `<!-- svc-iac:drift project=${markerValue(project)} target=${markerValue(target)} -->`;
}

/**
 * `<!-- svc-iac:drift-fingerprint <fp> -->`: the drift set the issue body describes. A fingerprint
 * longer than a hash is hashed, so the marker stays small whatever the report holds.
 */
export function fingerprintMarker(fingerprint: string): string {
  const fp =
    fingerprint.length > 64
      ? `sha256-${createHash("sha256").update(fingerprint).digest("hex")}`
      : markerValue(fingerprint);
  return `<!-- svc-iac:drift-fingerprint ${fp} -->`;
}

/** The fingerprint recorded in an issue body, or undefined when there is none. */
export function readFingerprint(body: string | null | undefined): string | undefined {
  return /<!-- svc-iac:drift-fingerprint (\S+) -->/.exec(body ?? "")?.[1];
}

/**
 * True when `body` was written by svc-iac for this marker: the marker opens the body. A comment
 * that merely quotes or mentions the marker further down is someone else's and is left alone.
 */
export function startsWithMarker(body: string | null | undefined, marker: string): boolean {
  return (body ?? "").trimStart().startsWith(marker);
}
