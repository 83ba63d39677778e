/** (stub: filled by the udfs area work) */
import type { Area } from "../area";

export const udfsArea: Area = { name: "udfs", routes: [] };
