/** (stub: filled by the cronjobs area work) */
import type { Area } from "../area";

export const cronjobsArea: Area = { name: "cronjobs", routes: [] };
