/**
 * Spec 4.11: the dataset query over the emulator's H3-indexed Parquet datasets. The indexer, the
 * catalog and the query live in `../datasets/`; datasets get there through the seed (`datasets:`)
 * or `emu.indexDataset(...)`.
 */
import type { Area } from "../area";
import { DATASETS_DDL } from "../datasets/dataset-catalog";
import { answerDatasetQuery } from "../datasets/dataset-query";

export const datasetsArea: Area = {
  name: "datasets",
  ddl: DATASETS_DDL,
  routes: [
    {
      method: "GET",
      path: "/h3/query",
      scope: "public_or_authorized",
      repeatable: ["columns"],
      handler: answerDatasetQuery,
    },
  ],
};
