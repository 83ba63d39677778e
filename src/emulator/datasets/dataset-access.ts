/**
 * Which dataset a query's `path` names and whether the caller may read it (spec 4.11 rule 5,
 * section 7):
 * - without credentials only a public dataset at a literal `s3://` path can be read; anything else
 *   (a `gs://` or `svc://` path, a private or missing dataset) is 403;
 * - with credentials, `svc://key` names `key` in the environment's first bucket; the path resolves
 *   to the environment's own dataset first, else to a public one; another team's private dataset
 *   and a missing one are 404;
 * - a dataset that never finished indexing is 409.
 */
import { conflict, forbidden, notFound } from "../http-error";
import { objectUrl, parseStoragePath } from "../object-store";
import type { RequestContext } from "../route";
import { firstBucket } from "../areas/files-access";
import { datasetAt, type DatasetRecord } from "./dataset-catalog";

export function readableDataset(ctx: RequestContext, path: string): DatasetRecord {
  const p = ctx.principal;
  const alias = /^svc:\/\/(.*)$/s.exec(path);
  if (!p) {
    const d = alias || !path.startsWith("s3://") ? undefined : datasetAt(ctx.store, objectUrl(parseStoragePath(path)));
    if (!d?.public) {
      throw forbidden(
        "Without credentials only a public dataset at a literal s3:// path can be read; send credentials for this path",
      );
    }
    return ready(d);
  }
  const url = alias ? `${objectUrl(firstBucket(ctx, p.envId))}${alias[1]}` : objectUrl(parseStoragePath(path));
  const d = datasetAt(ctx.store, url);
  if (!d || (d.envId !== p.envId && !d.public)) throw notFound(`No readable dataset at ${path}`);
  return ready(d);
}

function ready(d: DatasetRecord): DatasetRecord {
  if (d.state !== "ready") throw conflict(`The dataset at ${d.path} has not finished indexing`);
  return d;
}
