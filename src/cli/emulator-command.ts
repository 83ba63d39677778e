/** `svc-iac emulator`: runs the local platform until SIGINT/SIGTERM. */
import { startEmulator } from "../emulator/emulator";
import { parseFaultSpec } from "../emulator/faults";
import { SeedFileError } from "../emulator/seed-file";
import { terminalLine, terminalText } from "../reconcile/render/terminal-text";
import { parseCommandArgs, wholeNumberFlag } from "./command-args";
import { CliUsageError } from "./usage";

export async function runEmulatorCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    "emulator",
    argv,
    {
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "0" },
      "data-dir": { type: "string" },
      seed: { type: "string" },
      faults: { type: "string" },
      "import-max-bytes": { type: "string" },
      python: { type: "string" },
      "run-time-limit": { type: "string" },
    },
    { positionals: false },
  );
  const port = wholeNumberFlag("port", values.port, 0, 65535)!;
  const importMax = wholeNumberFlag("import-max-bytes", values["import-max-bytes"], 1);
  const limitText = values["run-time-limit"];
  // Seconds, fractions allowed ("0.5"); digits only, as the whole-number flags.
  const limit = limitText === undefined ? undefined : /^(\d+(\.\d*)?|\.\d+)$/.test(limitText) ? Number(limitText) : NaN;
  if (limit !== undefined && !(limit > 0 && limit <= 86_400)) {
    throw new CliUsageError(
      `Invalid --run-time-limit "${limitText}": expected a number of seconds above 0 and at most 86400, e.g. 60 or 0.5.`,
    );
  }
  if (values.python === "")
    throw new CliUsageError(
      'Invalid --python "". Expected the path or command name of a Python 3 interpreter, e.g. /usr/bin/python3.',
    );
  if (values.faults) {
    try {
      parseFaultSpec(values.faults);
    } catch (e) {
      throw new CliUsageError((e as Error).message);
    }
  }
  // A log line names what clients sent (paths, object names) and what UDFs wrote: one line each, escaped.
  const log = (line: string) => process.stderr.write(`[emulator] ${terminalLine(line)}\n`);
  const started = startEmulator({
    host: values.host,
    port,
    dataDir: values["data-dir"],
    seed: values.seed,
    faults: values.faults,
    importMaxBytes: importMax,
    python: values.python,
    runTimeLimitMs: limit === undefined ? undefined : Math.round(limit * 1000),
    log,
  }).catch((e: unknown) => {
    if (!(e instanceof SeedFileError)) throw e;
    // One `file:line:column: path: message` per line, as editors and CI read them (no prefix).
    process.stderr.write(`${terminalText(e.message)}\n`);
    return undefined;
  });
  const emu = await started;
  if (!emu) return 1;
  const t = emu.tokens;
  process.stdout.write(
    terminalText(
      JSON.stringify({
        base_url: emu.baseUrl,
        udf_base_url: emu.udfBaseUrl,
        user_token: t.user_token || null,
        service_token: t.service_token ?? null,
        client_id: emu.clientId ?? null,
        other_user_token: t.other_user_token ?? null,
        basic_user_token: t.basic_user_token ?? null,
        users: t.users,
        service_accounts: t.service_accounts,
        data_dir: values["data-dir"] ?? null,
        // The process to stop: under npx, `kill %1` or `$!` is npx's, which does not pass SIGTERM on.
        pid: process.pid,
      }) + "\n",
    ),
  );
  log(
    `listening on ${emu.origin} (${values["data-dir"] ? `data in ${values["data-dir"]}` : "in memory"}${values.faults ? `, faults: ${values.faults}` : ""}; UDF runs in ${emu.env.realtime.python}, time limit ${emu.env.realtime.timeLimitMs / 1000} s)`,
  );
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log(`${signal}: stopping`);
      resolve();
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
  await emu.close();
  return 0;
}
