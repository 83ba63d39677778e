/** Pulumi dynamic resources for the UDF platform. */
export { Canvas, type CanvasArgs } from "./canvas";
