/** (stub: filled by the environment area work) */
import type { Area } from "../area";

export const environmentArea: Area = { name: "environment", routes: [] };
