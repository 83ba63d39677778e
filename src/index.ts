/** svc-iac: infrastructure as code for the UDF platform. */
export * from "./api/index";
export { startEmulator, type EmulatorOptions, type RunningEmulator } from "./emulator/emulator";
export { ManualClock } from "./emulator/clock";
export * from "./provider/index";
export * from "./reconcile/index";
