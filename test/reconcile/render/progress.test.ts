import { describe, expect, it } from "vitest";
import type { ProgressEvent } from "../../../src/reconcile/commands/command-types";
import { progressDisplay } from "../../../src/reconcile/render/progress";

/** A stream that records what is written. */
function fakeStream(tty: boolean, columns = 80) {
  const chunks: string[] = [];
  const stream = { isTTY: tty, columns, write: (s: string) => (chunks.push(s), true) } as unknown as NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  return { stream, text: () => chunks.join(""), chunks };
}

const EVENTS: ProgressEvent[] = [
  { type: "start", total: 3 },
  { type: "begin", address: "canvas.sales", action: "create" },
  { type: "end", address: "canvas.sales", action: "create", status: "done" },
  { type: "begin", address: "udf.sales/loader", action: "create" },
  { type: "begin", address: "udf.sales/stats", action: "update" },
  { type: "end", address: "udf.sales/loader", action: "create", status: "failed", message: "409 Conflict" },
  { type: "end", address: "udf.sales/stats", action: "update", status: "skipped", message: "udf.sales/loader failed" },
];

describe("progress outside a terminal", () => {
  it("writes one plain line per finished action and no control characters", () => {
    const { stream, text } = fakeStream(false);
    const show = progressDisplay(stream);
    EVENTS.forEach(show);
    expect(text()).toBe(
      "[1/3] done create canvas.sales\n" + "[2/3] failed create udf.sales/loader: 409 Conflict\n" + "[3/3] skipped update udf.sales/stats: udf.sales/loader failed\n",
    );
    expect(text()).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
  });

  it("keeps escape sequences in messages out of the log", () => {
    const { stream, text } = fakeStream(false);
    const show = progressDisplay(stream);
    show({ type: "start", total: 1 });
    show({ type: "end", address: "canvas.sales", action: "create", status: "failed", message: "boom\x1b[2J\nagain" });
    expect(text()).toBe("[1/1] failed create canvas.sales: boom?[2J ⏎ again\n");
  });
});

describe("progress on a terminal", () => {
  it("rewrites one status line in place and prints failures on lines of their own", () => {
    const { stream, text, chunks } = fakeStream(true);
    const show = progressDisplay(stream);
    EVENTS.slice(0, 2).forEach(show);
    expect(chunks.at(-1)).toBe("\r\x1b[K[0/3] creating canvas.sales …");
    EVENTS.slice(2, 5).forEach(show);
    expect(chunks.at(-1)).toBe("\r\x1b[K[1/3] updating udf.sales/stats … (+1 more)");
    EVENTS.slice(5).forEach(show);
    const out = text();
    expect(out).toContain("\r\x1b[K✗ failed to create udf.sales/loader: 409 Conflict\n");
    expect(out).toContain("\r\x1b[K- skipped update of udf.sales/stats: udf.sales/loader failed\n");
    // Successes do not get lines of their own; once all finished, the status line is cleared.
    expect(out).not.toContain("canvas.sales\n");
    expect(chunks.at(-1)).toBe("\r\x1b[K");
  });

  it("cuts the status line to the terminal width so it never wraps", () => {
    const { stream, chunks } = fakeStream(true, 30);
    const show = progressDisplay(stream);
    show({ type: "start", total: 40 });
    show({ type: "begin", address: "udf.sales/a_very_long_udf_name_that_goes_on", action: "create" });
    const line = (chunks.at(-1) ?? "").replace("\r\x1b[K", "");
    expect(line.length).toBeLessThanOrEqual(29);
    expect(line.startsWith("[0/40] creating udf.sales/")).toBe(true);
  });
});
