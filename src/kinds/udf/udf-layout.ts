/**
 * UDF visibility and order on a canvas. The platform sets them only through the canvas update's
 * `udfs` list, which replaces the canvas's whole UDF set; so the list sent holds every UDF the
 * canvas has right now (read just before), by id, with the desired values for the managed ones and
 * the current values for all others. Nothing is created, moved or removed.
 */
import type { SvcClient } from "../../api/client";
import { forEachBounded } from "../../bounded";

export interface LayoutItem {
  address: string;
  /** The UDF's id. */
  id: string;
  /** The canvas's id. */
  parentId: string;
  isVisible?: boolean;
  position?: number;
}

/** Applies the layouts; returns the failures by UDF address. */
export async function layoutCanvases(
  client: SvcClient,
  items: LayoutItem[],
  concurrency: number,
): Promise<Map<string, string>> {
  const byCanvas = new Map<string, LayoutItem[]>();
  for (const i of items) byCanvas.set(i.parentId, [...(byCanvas.get(i.parentId) ?? []), i]);
  const failures = new Map<string, string>();
  await forEachBounded([...byCanvas.entries()], concurrency, async ([canvasId, wanted]) => {
    try {
      const canvas = await client.canvases.getById(canvasId);
      const byId = new Map(wanted.map((w) => [w.id, w]));
      const current = (canvas.udfs ?? []) as { id: string; is_visible: boolean; position: number }[];
      const differs = current.some((u) => {
        const w = byId.get(u.id);
        return (
          w &&
          ((w.isVisible !== undefined && w.isVisible !== u.is_visible) ||
            (w.position !== undefined && w.position !== u.position))
        );
      });
      if (!differs) return;
      const udfs = current.map((u) => {
        const w = byId.get(u.id);
        return { id: u.id, is_visible: w?.isVisible ?? u.is_visible, position: w?.position ?? u.position };
      });
      await client.canvases.update(canvasId, { name: canvas.name, udfs });
    } catch (e) {
      const message = `setting visibility and order on canvas ${canvasId} failed: ${e instanceof Error ? e.message : String(e)}`;
      for (const w of wanted) failures.set(w.address, message);
    }
  });
  return failures;
}
