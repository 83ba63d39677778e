/**
 * svc.yaml's file name, the default target and the forms of names: what a reader that needs no
 * kind (the `projects` command, which reads only each project's name and targets) shares with the
 * loader, without loading the kinds' definitions.
 */

export const SVC_FILE = "svc.yaml";
export const DEFAULT_TARGET = "default";

/** Names and forms shared by several files. */
export const PATTERNS = {
  project: /^[a-z0-9][a-z0-9_-]*$/,
  target: /^[A-Za-z0-9_-]+$/,
  variable: /^[A-Za-z_][A-Za-z0-9_]*$/,
  envName: /^[A-Za-z_][A-Za-z0-9_]*$/,
  canvas: /^[A-Za-z0-9_]+$/,
  slug: /^[A-Za-z0-9_-]+$/,
  module: /^[A-Za-z_][A-Za-z0-9_]*$/,
  cronjob: /^[A-Za-z0-9_-]+$/,
  secretKey: /^[A-Za-z0-9_.-]{1,256}$/,
  duration: /^[1-9][0-9]*[mhdw]$/,
  remoteState: /^(s3|gs):\/\/[a-z0-9][a-z0-9._-]*[a-z0-9](\/.*)?$/,
} as const;

/** What `project:` must be, as messages say it. */
export const PROJECT_EXPECTED =
  'a project name of lowercase letters, digits, "_" and "-", starting with a letter or digit, e.g. "listings"';

/** A target name that does not have the form, as messages say it. */
export const badTargetName = (name: string) =>
  `found target name "${name}", expected letters, digits, "_" and "-" ([A-Za-z0-9_-]+)`;
