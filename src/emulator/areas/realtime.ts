/** (stub: filled by the realtime area work) */
import type { Area } from "../area";

export const realtimeArea: Area = { name: "realtime", routes: [] };
