/**
 * Platform cronjobs as `cronjobs/<name>.yaml`, the way `load/cronjob-files.ts` reads them: the
 * schedule arrays written back as one cron expression, the UDF as `<canvas>/<slug>` of an imported
 * UDF, arguments, `enabled` when false, the description.
 */
import type { Cronjob as ApiCronjob } from "../../api/schemas";
import { formatCron, normalizeSchedule } from "../../kinds/cronjob/cron-expression";
import { cronProblem } from "../load/cronjob-files";
import { PATTERNS } from "../load/keys";
import type { ImportedUdfs } from "./canvas-files";
import type { DraftBuilder } from "./draft";
import { literal, literalData, yamlText } from "./yaml-text";

/** Writes the cronjobs that run imported UDFs; the others are listed with the reason. */
export function importCronjobs(list: readonly ApiCronjob[], udfs: ImportedUdfs, draft: DraftBuilder): void {
  // The listing is oldest first: of several cronjobs with one name, the oldest gets the file.
  const taken = new Set<string>();
  for (const c of list) {
    const label = `cronjob ${JSON.stringify(c.name)}`;
    const udf = udfs.get(c.udf);
    if (!PATTERNS.cronjob.test(c.name)) {
      draft.skip(label, c.id, "its name is not a file name the repository format accepts ([A-Za-z0-9_-]+)");
      continue;
    }
    if (taken.has(c.name)) {
      draft.skip(label, c.id, "an older cronjob has the same name, and the repository holds one cronjob per name");
      continue;
    }
    if (!udf) {
      draft.skip(
        label,
        c.id,
        `it runs UDF ${c.udf}, which this import does not write: import its canvas too (--canvas NAME or --all)`,
      );
      continue;
    }
    const schedule = formatCron(
      normalizeSchedule({
        minute: c.minute,
        hour: c.hour,
        dayOfMonth: c.day_of_month,
        month: c.month,
        dayOfWeek: c.day_of_week,
      }),
    );
    const problem = cronProblem(schedule);
    if (problem) {
      draft.skip(label, c.id, `its schedule cannot be written as one cron expression: ${problem}`);
      continue;
    }
    taken.add(c.name);
    const doc: Record<string, unknown> = { schedule, udf };
    if (c.udf_args && Object.keys(c.udf_args).length) doc.args = literalData(c.udf_args);
    if (!c.enabled) doc.enabled = false;
    if (typeof c.description === "string") doc.description = literal(c.description);
    draft.file(
      `cronjobs/${c.name}.yaml`,
      yamlText(doc, [`Cronjob ${c.name}, imported by svc-iac import.`]),
      `cronjob.${c.name}`,
    );
    draft.bind({ address: `cronjob.${c.name}`, kind: "Cronjob", id: c.id, key: c.name });
  }
}
