/** (stub: filled by the files area work) */
import type { Area } from "../area";

export const filesArea: Area = { name: "files", routes: [] };
