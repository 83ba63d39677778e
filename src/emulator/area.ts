/** An API area of the emulator: its tables, its routes, and optional periodic work. */
import type { EmulatorEnv, RouteDef } from "./route";

export interface Area {
  name: string;
  /** `CREATE TABLE IF NOT EXISTS ...` statements; run at start. */
  ddl?: string;
  routes: RouteDef[];
  /**
   * Periodic work (the cronjob scheduler, job progress), run inside a transaction by the
   * emulator's timer and by `emulator.tick()` in tests after moving a manual clock.
   */
  tick?: (env: EmulatorEnv) => void;
}
