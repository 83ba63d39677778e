/** (stub: filled by the datasets area work) */
import type { Area } from "../area";

export const datasetsArea: Area = { name: "datasets", routes: [] };
