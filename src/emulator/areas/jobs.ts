/** (stub: filled by the jobs area work) */
import type { Area } from "../area";

export const jobsArea: Area = { name: "jobs", routes: [] };
