#!/usr/bin/env node
/**
 * Validates action.yml and GitHub workflow files with GitHub's own parser
 * (`@actions/workflow-parser`, the one behind the Actions language service): schema, keys,
 * expressions, `runs.using` values. Prints each file's errors; exits 1 when there are any.
 *
 *   node scripts/validate-actions.mjs [--json] [FILE...]   (default: action.yml and examples/workflows/*.yml)
 *
 * A file named action.yml or action.yaml is read as an action's metadata, any other as a workflow.
 */
import { registerHooks } from "node:module";
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

// The parser imports its JSON schemas without `with { type: "json" }` (it is built for bundlers).
registerHooks({
  load(url, context, nextLoad) {
    if (url.endsWith(".json") && url.includes("/@actions/workflow-parser/"))
      return nextLoad(url, { ...context, importAttributes: { type: "json" } });
    return nextLoad(url, context);
  },
});
const { parseWorkflow, convertWorkflowTemplate, NoOperationTraceWriter } = await import("@actions/workflow-parser");
const { parseAction, convertActionTemplate } = await import("@actions/workflow-parser/actions/index");

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const json = args.includes("--json");
let files = args.filter((a) => a !== "--json");
if (files.length === 0) {
  const dir = join(root, "examples", "workflows");
  files = [
    join(root, "action.yml"),
    ...readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()
      .map((f) => join(dir, f)),
  ];
}

/** The errors GitHub's parser finds in one file, as "line:column message" where it knows them. */
async function errorsOf(file) {
  const content = readFileSync(file, "utf8");
  const trace = new NoOperationTraceWriter();
  const isAction = /^action\.ya?ml$/.test(basename(file));
  const parsed = isAction ? parseAction({ name: file, content }, trace) : parseWorkflow({ name: file, content }, trace);
  if (parsed.value) {
    if (isAction) convertActionTemplate(parsed.context, parsed.value);
    else await convertWorkflowTemplate(parsed.context, parsed.value);
  }
  const messages = parsed.context.errors.getErrors().map((e) => e.message);
  return [...new Set(messages)];
}

const results = {};
for (const file of files) results[relative(process.cwd(), file) || file] = await errorsOf(file);
const failed = Object.values(results).some((errors) => errors.length > 0);
if (json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
else
  for (const [file, errors] of Object.entries(results))
    process.stdout.write(
      errors.length
        ? `${file}: ${errors.length} error(s)\n${errors.map((e) => `  ${e}\n`).join("")}`
        : `${file}: valid\n`,
    );
process.exit(failed ? 1 : 0);
