/** (stub: filled by the sharing area work) */
import type { Area } from "../area";

export const sharingArea: Area = { name: "sharing", routes: [] };
