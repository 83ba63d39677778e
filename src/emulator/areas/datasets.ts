/**
 * Spec 4.11: the dataset query. Not emulated yet: `GET /h3/query` answers 501 with a clear detail
 * (after the usual credential check of the "public or authorized" scope, so a bad token is 401).
 */
import type { Area } from "../area";
import { HttpError } from "../http-error";

export const DATASET_QUERY_UNAVAILABLE = "The dataset query is not available in the emulator yet";

export const datasetsArea: Area = {
  name: "datasets",
  routes: [
    {
      method: "GET",
      path: "/h3/query",
      scope: "public_or_authorized",
      handler: () => {
        throw new HttpError(501, DATASET_QUERY_UNAVAILABLE);
      },
    },
  ],
};
