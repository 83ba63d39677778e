/**
 * `cronjobs/<name>.yaml`: one cronjob per file, named by the file stem. The schedule is a cron
 * string or the platform's arrays (exactly one form) and must hold exactly one minute value.
 */
import type { DesiredObject, SourceLocation } from "../../model/desired";
import type { RepositoryJail } from "../../repository/jail";
import { FIELDS, parseCron } from "../../kinds/cronjob/cron-expression";
import { cronjobDefinition } from "../../kinds/cronjob/definition";
import { inputDefault, inputKeysOf, repositoryOf } from "../../kinds/definition-views";
import { describeFound, type Diagnostics } from "../../repository/diagnostics";
import { desiredObject, onDriftOf } from "./desired";
import { referencedInputs, rootReader, type MapReader } from "../../repository/fields";
import { CRON_ARRAY_KEYS, CRONJOB_KEYS, PATTERNS } from "./keys";
import { refuseCaseTwins } from "./case-twins";
import { folderNotFile, listFolder } from "../../repository/repo-files";
import type { Resolver } from "../../repository/variables";
import { locate, readYaml } from "../../repository/yaml-source";

export const CRONJOBS = "cronjobs";

/** A cronjob's `udf:` reference, checked once every UDF is known. */
export interface UdfReference {
  udf: string;
  at: SourceLocation;
}

export const ONE_MINUTE =
  "the platform runs a cronjob at exactly one minute of each matching hour; to run several times an hour, declare one cronjob per minute value";

/** Each array key ← the input it fills, as the kind's definition declares it. */
const ARRAY_INPUTS = Object.fromEntries(
  CRON_ARRAY_KEYS.map((key) => [key, repositoryOf(cronjobDefinition).keys[key]!.input as keyof typeof FIELDS]),
) as Record<(typeof CRON_ARRAY_KEYS)[number], keyof typeof FIELDS>;

/** Inputs (as plans name them) ← the keys they are written under (from the kind's definition). */
const INPUT_KEYS = inputKeysOf(cronjobDefinition);

export async function readCronjobs(
  jail: RepositoryJail,
  vars: Resolver,
  diag: Diagnostics,
): Promise<{ objects: DesiredObject[]; references: UdfReference[] }> {
  const objects: DesiredObject[] = [];
  const references: UdfReference[] = [];
  const entries = await listFolder(jail, CRONJOBS, diag);
  refuseCaseTwins(
    entries.filter((e) => !e.isFolder && e.name.endsWith(".yaml")).map((e) => `${CRONJOBS}/${e.name}`),
    "cronjob files",
    "cronjob names",
    diag,
  );
  for (const entry of entries) {
    if (entry.isFolder && /\.ya?ml$/.test(entry.name))
      diag.atFile(`${CRONJOBS}/${entry.name}`, folderNotFile(`${CRONJOBS}/${entry.name}`));
    if (entry.isFolder || !/\.ya?ml$/.test(entry.name)) continue;
    const file = `${CRONJOBS}/${entry.name}`;
    if (entry.name.endsWith(".yml")) {
      diag.atFile(
        file,
        `found a .yml file, expected <name>.yaml: rename it to ${entry.name.replace(/\.yml$/, ".yaml")}`,
      );
      continue;
    }
    const name = entry.name.slice(0, -".yaml".length);
    if (!PATTERNS.cronjob.test(name)) {
      diag.atFile(
        file,
        `found cronjob file "${entry.name}", expected a name of letters, digits, "_" and "-" only ([A-Za-z0-9_-]+) followed by .yaml`,
      );
    }
    const src = await readYaml(jail, file, diag);
    if (!src) continue;
    const ctx = { src, diag, vars };
    const top = rootReader(ctx, CRONJOB_KEYS);
    if (!top.isMapping) continue;
    const schedule = readSchedule(top);
    const udf = top.string("udf", {
      required: true,
      pattern: /^[A-Za-z0-9_]+\/[A-Za-z0-9_-]+$/,
      expected: 'a UDF of this repository as "<canvas>/<slug>", e.g. "listings/stats"',
    });
    if (udf !== undefined) references.push({ udf, at: locate(src, top.valueNode("udf"), "udf") });
    const inputs = {
      name,
      ...schedule,
      udfArgs: top.object("args", "a mapping of arguments passed on each run, e.g. {city: nyc}"),
      enabled: top.boolean("enabled") ?? inputDefault<boolean>(cronjobDefinition, "enabled"),
      description: top.string("description"),
    };
    const more = {
      refs: { udf },
      options: { protect: top.boolean("protect"), onDrift: onDriftOf(top, src.file) },
      referenced: referencedInputs(ctx, INPUT_KEYS),
    };
    objects.push(desiredObject("Cronjob", `cronjob.${name}`, inputs, locate(src, null, ""), more));
  }
  return { objects, references };
}

function readSchedule(top: MapReader): Record<string, unknown> {
  const arrays = CRON_ARRAY_KEYS.filter((k) => top.has(k));
  if (top.has("schedule") && arrays.length) {
    top.fail(
      arrays[0],
      `found both schedule and ${arrays.join(", ")}, expected exactly one form: a cron string in schedule, or the arrays`,
    );
    return {};
  }
  if (!top.has("schedule") && !arrays.length) {
    top.fail(
      "schedule",
      `required key "schedule" is missing; expected a cron string such as "0 6 * * 1-5", or the arrays minute (one value), hour, day_of_month, month, day_of_week`,
    );
    return {};
  }
  if (top.has("schedule")) {
    const text = top.string("schedule", {
      expected: 'a cron string "minute hour day-of-month month day-of-week", e.g. "0 6 * * 1-5"',
    });
    const problem = text === undefined ? undefined : cronProblem(text);
    if (problem) top.fail("schedule", problem);
    return text === undefined || problem ? {} : { schedule: text };
  }
  if (!top.has("minute")) {
    top.fail(
      "minute",
      `required key "minute" is missing with the array form; expected the one minute of the hour the cronjob runs at, e.g. 0`,
    );
  }
  const out: Record<string, unknown> = {};
  for (const key of arrays) {
    const values = arrayField(top, key);
    if (values) out[ARRAY_INPUTS[key]] = values;
  }
  return out;
}

/** What is wrong with a cron string, or undefined: the field count and the one minute value first, then each field. */
export function cronProblem(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith("@")) {
    const r = parseCron(trimmed);
    return r.ok ? undefined : `found ${JSON.stringify(text)}: ${r.errors.join(" ")}`;
  }
  const parts = trimmed.split(/\s+/).filter(Boolean);
  if (parts.length !== 5) {
    return `found ${parts.length} field${parts.length === 1 ? "" : "s"} in ${JSON.stringify(text)}, expected 5: "minute hour day-of-month month day-of-week", e.g. "0 6 * * 1-5"`;
  }
  const minute = parts[0];
  const minuteOk = /^\d+$/.test(minute) && Number(minute) <= 59;
  const problems: string[] = [];
  if (!minuteOk)
    problems.push(
      `found minute field ${JSON.stringify(minute)} in ${JSON.stringify(text)}, expected exactly one minute value (a whole number 0-59): ${ONE_MINUTE}`,
    );
  // The other fields, checked by the full parser with the minute set aside.
  const rest = parseCron(["0", ...parts.slice(1)].join(" "));
  if (!rest.ok) problems.push(...rest.errors);
  return problems.length ? problems.join("; ") : undefined;
}

function arrayField(top: MapReader, key: (typeof CRON_ARRAY_KEYS)[number]): number[] | undefined {
  const { label, min, max } = FIELDS[ARRAY_INPUTS[key]];
  const r = top.value(key);
  if (!r) return undefined;
  const list = key === "minute" && typeof r.value === "number" ? [r.value] : r.value;
  const valid =
    Array.isArray(list) && list.every((v) => typeof v === "number" && Number.isInteger(v) && v >= min && v <= max);
  if (key === "minute") {
    if (!valid || list.length !== 1) {
      return top.fail(
        key,
        `found ${describeMinute(r.value)}, expected exactly one minute value (a whole number 0-59): ${ONE_MINUTE}`,
      );
    }
    return list as number[];
  }
  if (!valid)
    return top.fail(
      key,
      `found ${describeFound(r.value)}${Array.isArray(r.value) ? ` [${r.value.join(", ")}]` : ""}, expected a list of ${label} values ${min}-${max} ([] means every ${label})`,
    );
  return list as number[];
}

function describeMinute(value: unknown): string {
  return Array.isArray(value)
    ? `${value.length} value${value.length === 1 ? "" : "s"} [${value.join(", ")}]`
    : describeFound(value);
}
