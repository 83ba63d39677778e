/** Every resource kind by name: what the provider runtime and the reconciler dispatch on. */
import { canvasKind } from "./canvas";
import type { ResourceKind } from "./kind";

export const KINDS: Record<string, ResourceKind<any, any>> = {
  Canvas: canvasKind,
};
