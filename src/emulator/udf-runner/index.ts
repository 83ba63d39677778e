/** The UDF runner: real Python runs of UDF bodies for the emulator (see `run-udf.ts`). */
export {
  DEFAULT_TIMEOUT_MS,
  RUNNER_SCRIPT,
  UDF_OUTPUT_FORMATS,
  describeUdfs,
  runUdf,
  type UdfOutputFormat,
} from "./run-udf";
export { tileBounds } from "./tile-bounds";
export type * from "./types";
