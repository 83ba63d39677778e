/** "Already gone" is an answer, not an error, for reads and deletes of resource kinds. */
import { isApiError } from "../api/errors";
import type { Canvas } from "../api/schemas";
import type { KindContext } from "./kind";
import { SvcError } from "../errors";

/** The call's result, or `undefined` when the platform answers 404. */
export async function unlessMissing<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (e) {
    if (isApiError(e, "not_found")) return undefined;
    throw e;
  }
}

/** The canvas a UDF or share refers to, or an error that says what `canvasId` must be. */
export async function referencedCanvas(ctx: KindContext, canvasId: string): Promise<Canvas> {
  const c = await unlessMissing(ctx.client.canvases.getById(canvasId));
  if (!c)
    throw new SvcError(
      "canvas_not_found",
      `Canvas "${canvasId}" was not found in your team: canvasId must be the id of an existing canvas (e.g. canvas.id).`,
    );
  return c;
}
