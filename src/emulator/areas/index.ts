/** Every API area of the emulator, in the order their tables are created. */
import type { Area } from "../area";
import { accountArea } from "./account";
import { canvasesArea } from "./canvases";
import { cronjobsArea } from "./cronjobs";
import { datasetsArea } from "./datasets";
import { environmentArea } from "./environment";
import { filesArea } from "./files";
import { jobsArea } from "./jobs";
import { realtimeArea } from "./realtime";
import { secretsArea } from "./secrets";
import { sharingArea } from "./sharing";
import { udfHostArea } from "./udf-host";
import { udfsArea } from "./udfs";

export const AREAS: Area[] = [
  accountArea,
  canvasesArea,
  sharingArea,
  udfsArea,
  realtimeArea,
  cronjobsArea,
  jobsArea,
  filesArea,
  secretsArea,
  environmentArea,
  datasetsArea,
  udfHostArea,
];
