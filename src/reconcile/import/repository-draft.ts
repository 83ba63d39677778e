/**
 * From a platform snapshot to the repository files and inventory bindings of an import; pure.
 *
 * Folder `import/`: the steps of `svc-iac import` and `keep` (`../commands/import.ts`,
 * `../commands/keep.ts`): platform objects written back as repository files, and drifted fields
 * kept in place. May import `src/api`, `src/model`, `src/kinds`, `src/repository`, `../phases` and
 * `../load` (keys, svc.yaml).
 */
import type { FingerprintKey } from "../../kinds/fingerprint";
import { byString } from "../phases";
import { importServiceAccounts, importSecrets } from "./account-files";
import { importCanvas, type ImportedUdfs } from "./canvas-files";
import { importCanvaslessUdfs } from "./canvasless-files";
import { importCronjobs } from "./cronjob-files";
import { importCanvasPlatformLayout } from "./platform-layout-files";
import { DraftBuilder, type ImportDraft } from "./draft";
import type { ImportSelection, PlatformSnapshot } from "./platform-snapshot";

/** Which layout canvases are written in: svc-iac's (`canvases/`) or the platform's own (`<Canvas>/collection.json`). */
export type ImportLayout = "svc-iac" | "platform";

/** `fingerprintKey`: the project's key, for the token fingerprints the bindings keep. */
export function draftRepository(
  snapshot: PlatformSnapshot,
  select: ImportSelection,
  fingerprintKey?: FingerprintKey,
  layout: ImportLayout = "svc-iac",
): ImportDraft {
  const draft = new DraftBuilder();
  const udfs: ImportedUdfs = new Map();
  for (const c of [...snapshot.canvases].sort((a, b) => byString(a.name, b.name) || byString(a.id, b.id))) {
    if (layout === "platform") importCanvasPlatformLayout(c, draft, udfs);
    else importCanvas(c, snapshot.preferredClientId, draft, udfs, fingerprintKey);
  }
  importCanvaslessUdfs(snapshot.canvaslessUdfs, draft, layout);
  if (select.cronjobs) importCronjobs(cronjobsConcerned(snapshot, select), udfs, draft);
  if (select.secrets) importSecrets(snapshot.secretKeys, draft);
  if (select.serviceAccounts) importServiceAccounts(snapshot.serviceAccounts, draft);
  return draft.done();
}

/**
 * The cronjobs an import reports on: with canvases named, those running a UDF of one of them
 * (the others, and why they are not imported, concern canvases nobody asked for); else every one.
 */
function cronjobsConcerned(snapshot: PlatformSnapshot, select: ImportSelection): PlatformSnapshot["cronjobs"] {
  if (select.canvases === "all" || !select.canvases.length) return snapshot.cronjobs;
  const asked = new Set(select.canvases);
  return snapshot.cronjobs.filter((c) => asked.has(snapshot.udfCanvas.get(c.udf) ?? ""));
}
