/** How `show` and `history` print their result: load errors and the message on stderr, the report as text or one JSON document. */
import { relative, resolve } from "node:path";
import { sortKeysDeep } from "../canonical-json";
import type { LoadError } from "../model/desired";
import { failureJson } from "../reconcile/render/json";
import type { CommandIo } from "./actions-io";
import { errorLine } from "./repository-folder";

/** A report command's result, as both commands return it. */
export interface ReportResult<R> {
  errors: LoadError[];
  report?: R;
  message?: string;
  code?: string;
}

/** Writes `result`: `--json` prints the report (or the failure) as one JSON document, else `text(report)`. */
export function writeReportResult<R>(
  command: string,
  dir: string,
  io: CommandIo,
  result: ReportResult<R>,
  json: boolean,
  text: (report: R) => string,
): void {
  for (const e of result.errors) io.stderr.write(`${errorLine(command, dir, e)}\n`);
  if (result.errors.length)
    io.stderr.write(
      `${result.errors.length} error${result.errors.length > 1 ? "s" : ""} in ${relative(".", resolve(dir)) || "."}.\n`,
    );
  if (result.message) io.stderr.write(`${result.message}\n`);
  if (json)
    io.stdout.write(
      result.report
        ? `${JSON.stringify(sortKeysDeep(result.report), null, 2)}\n`
        : failureJson(result.errors, result.message, { code: result.code }),
    );
  else if (result.report) io.stdout.write(text(result.report));
}
