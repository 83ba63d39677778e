/** `svc-iac emulator`: runs the local platform until SIGINT/SIGTERM. */
import { parseArgs } from "node:util";
import { startEmulator } from "../emulator/emulator";
import { parseFaultSpec } from "../emulator/faults";
import { CliUsageError } from "./usage";

export async function runEmulatorCommand(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: "string", default: "127.0.0.1" },
        port: { type: "string", default: "0" },
        "data-dir": { type: "string" },
        seed: { type: "string" },
        faults: { type: "string" },
        "import-max-bytes": { type: "string" },
        python: { type: "string" },
        "run-time-limit": { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new CliUsageError((e as Error).message);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliUsageError(`Invalid --port "${values.port}". Expected a whole number from 0 to 65535.`);
  const importMax = values["import-max-bytes"] === undefined ? undefined : Number(values["import-max-bytes"]);
  if (importMax !== undefined && !(Number.isInteger(importMax) && importMax > 0)) {
    throw new CliUsageError(`Invalid --import-max-bytes "${values["import-max-bytes"]}". Expected a positive whole number of bytes.`);
  }
  const limit = values["run-time-limit"] === undefined ? undefined : Number(values["run-time-limit"]);
  if (limit !== undefined && !(Number.isFinite(limit) && limit > 0 && limit <= 86_400)) {
    throw new CliUsageError(`Invalid --run-time-limit "${values["run-time-limit"]}". Expected a number of seconds above 0 and at most 86400, e.g. 60 or 0.5.`);
  }
  if (values.python === "") throw new CliUsageError("Invalid --python \"\". Expected the path or command name of a Python 3 interpreter, e.g. /usr/bin/python3.");
  if (values.faults) {
    try {
      parseFaultSpec(values.faults);
    } catch (e) {
      throw new CliUsageError((e as Error).message);
    }
  }
  const log = (line: string) => process.stderr.write(`[emulator] ${line}\n`);
  const emu = await startEmulator({
    host: values.host,
    port,
    dataDir: values["data-dir"],
    seed: values.seed,
    faults: values.faults,
    importMaxBytes: importMax,
    python: values.python,
    runTimeLimitMs: limit === undefined ? undefined : Math.round(limit * 1000),
    log,
  });
  const t = emu.tokens;
  process.stdout.write(
    JSON.stringify({
      base_url: emu.baseUrl,
      udf_base_url: emu.udfBaseUrl,
      user_token: t.user_token,
      service_token: t.service_token ?? null,
      client_id: emu.clientId ?? null,
      other_user_token: t.other_user_token ?? null,
      basic_user_token: t.basic_user_token ?? null,
      users: t.users,
      service_accounts: t.service_accounts,
      data_dir: values["data-dir"] ?? null,
    }) + "\n",
  );
  log(`listening on ${emu.origin} (${values["data-dir"] ? `data in ${values["data-dir"]}` : "in memory"}${values.faults ? `, faults: ${values.faults}` : ""}; UDF runs in ${emu.env.realtime.python}, time limit ${emu.env.realtime.timeLimitMs / 1000} s)`);
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
