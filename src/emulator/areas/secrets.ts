/** (stub: filled by the secrets area work) */
import type { Area } from "../area";

export const secretsArea: Area = { name: "secrets", routes: [] };
