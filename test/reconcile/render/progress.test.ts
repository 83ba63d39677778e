import { describe, expect, it, vi } from "vitest";
import type { ProgressEvent } from "../../../src/reconcile/commands/command-types";
import type { Plan } from "../../../src/reconcile/plan/plan-model";
import { displayWidth } from "../../../src/reconcile/render/display-width";
import { progressDisplay } from "../../../src/reconcile/render/progress";

/** A stream that records what is written. */
function fakeStream(tty: boolean, columns = 80) {
  const chunks: string[] = [];
  const listeners: (() => void)[] = [];
  const stream = {
    isTTY: tty,
    columns,
    write: (s: string) => (chunks.push(s), true),
    on: (_event: "resize", listener: () => void) => listeners.push(listener),
    off: (_event: "resize", listener: () => void) => listeners.splice(listeners.indexOf(listener), 1),
  } as unknown as NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  const resize = (to: number) => ((stream.columns = to), listeners.forEach((l) => l()));
  return { stream, text: () => chunks.join(""), chunks, resize };
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
      "[1/3] done create canvas.sales\n" +
        "[2/3] failed create udf.sales/loader: 409 Conflict\n" +
        "[3/3] skipped update udf.sales/stats: udf.sales/loader failed\n",
    );
    expect(text()).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
  });

  it("keeps escape sequences in messages out of the log", () => {
    const { stream, text } = fakeStream(false);
    const show = progressDisplay(stream);
    show({ type: "start", total: 1 });
    show({ type: "end", address: "canvas.sales", action: "create", status: "failed", message: "boom\x1b[2J\nagain" });
    expect(text()).toBe("[1/1] failed create canvas.sales: boom\\x1b[2J ⏎ again\n");
  });
});

describe("progress on a terminal", () => {
  it("writes its own cursor moves raw and the escape sequences, line breaks and overrides of names and messages as escapes", () => {
    const { stream, text } = fakeStream(true, 200);
    const show = progressDisplay(stream, { statusIntervalMs: 0 });
    const evil = "\x1b]0;pwned\x07\x1b[2J\rx\u202ey";
    show({ type: "start", total: 2 });
    show({ type: "begin", address: `cronjob.a${evil}`, action: "create" });
    show({ type: "end", address: `cronjob.a${evil}`, action: "create", status: "failed", message: `boom${evil}` });
    const own = text().replace(/\r\x1b\[K|\x1b\[1A\x1b\[2K/g, "");
    expect(own).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(own).toContain("boom\\x1b]0;pwned\\x07\\x1b[2J\\rx\\u202ey");
  });

  it("rewrites one status line in place and prints failures on lines of their own", () => {
    const { stream, text, chunks } = fakeStream(true);
    const show = progressDisplay(stream, { statusIntervalMs: 0 });
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

  it("WHEN an interrupt skips many steps THEN only the first skip of that reason gets a line above the status line", () => {
    const { stream, text } = fakeStream(true);
    const show = progressDisplay(stream, { statusIntervalMs: 0 });
    show({ type: "start", total: 3 });
    for (const slug of ["a", "b", "c"])
      show({
        type: "end",
        address: `udf.sales/${slug}`,
        action: "create",
        status: "skipped",
        message: "interrupted (SIGINT)",
      });
    expect(text().match(/- skipped/g)).toHaveLength(1);
  });

  it("fits the status line to the terminal width: the (+N more) goes first, then the middle of the address; the counter and the action word stay", () => {
    const { stream, chunks, resize } = fakeStream(true, 50);
    const show = progressDisplay(stream, { statusIntervalMs: 0 });
    const line = () => (chunks.at(-1) ?? "").replace("\r\x1b[K", "");
    show({ type: "start", total: 2000 });
    show({ type: "begin", address: "udf.sales/u00041", action: "create" });
    show({ type: "begin", address: "udf.sales/u00042", action: "create" });
    expect(line()).toBe("[0/2000] creating udf.sales/u00042 … (+1 more)");
    resize(40);
    expect(line()).toBe("[0/2000] creating udf.sales/u00042 …");
    show({ type: "begin", address: "udf.sales_and_marketing_reports/u00043", action: "create" });
    expect(line()).toBe("[0/2000] creating udf.sales_a…/u00043 …");
    expect(displayWidth(line())).toBeLessThanOrEqual(39);
  });

  it("never cuts to a stub such as 'creating canv…', counts wide characters as two columns, and has no control characters from the address", () => {
    for (const columns of [12, 20, 30, 40, 80]) {
      const { stream, chunks } = fakeStream(true, columns);
      const show = progressDisplay(stream, { statusIntervalMs: 0 });
      show({ type: "start", total: 40 });
      for (const address of [
        "canvas.a_canvas_with_a_long_name_for_sales",
        "udf.売上レポート/週次の集計_🎉🎉🎉",
        "udf.x\x1b[2J/y",
      ]) {
        show({ type: "begin", address, action: "create" });
        const line = (chunks.at(-1) ?? "").replace("\r\x1b[K", "");
        expect(displayWidth(line), `${columns}: ${line}`).toBeLessThanOrEqual(columns - 1);
        // Narrower than the counter and the word: the counter alone.
        expect(line).toMatch(columns < 20 ? /^\[0\/40\]$/ : /^\[0\/40\] creating( |$)/);
        expect(line).not.toMatch(/canv…|[\x00-\x1f]/);
      }
    }
  });

  it("re-fits the status line when the terminal is resized", () => {
    const { stream, chunks, resize } = fakeStream(true, 80);
    const show = progressDisplay(stream, { statusIntervalMs: 0 });
    show({ type: "start", total: 3 });
    show({ type: "begin", address: "udf.sales_and_marketing/weekly_summary", action: "update" });
    expect(chunks.at(-1)).toBe("\r\x1b[K[0/3] updating udf.sales_and_marketing/weekly_summary …");
    resize(30);
    // The 57-column line the terminal re-wrapped on two rows of 30: the row above is cleared too.
    expect(chunks.slice(-2).join("")).toBe("\r\x1b[K\x1b[1A\x1b[2K\r\x1b[K[0/3] updating udf…_summary …");
    resize(80);
    expect(chunks.at(-1)).toBe("\r\x1b[K[0/3] updating udf.sales_and_marketing/weekly_summary …");
  });

  it("GIVEN a terminal narrowed whose SIGWINCH is not handled yet THEN the next line and the final clear use the size the terminal reports, clearing the row it re-wrapped the line onto", () => {
    const { stream, chunks } = fakeStream(true, 80);
    let reported = 80;
    Object.assign(stream, { getWindowSize: () => [reported, 24] });
    const show = progressDisplay(stream, { statusIntervalMs: 0 });
    show({ type: "start", total: 2 });
    show({ type: "begin", address: "udf.sales_and_marketing/weekly_summary", action: "update" });
    expect(chunks.at(-1)).toBe("\r\x1b[K[0/2] updating udf.sales_and_marketing/weekly_summary …");
    reported = 30; // the terminal re-wrapped the 57-column line on two rows; `columns` is still 80
    show({ type: "begin", address: "udf.sales_and_marketing/monthly_summary", action: "update" });
    expect(chunks.slice(-2).join("")).toBe("\r\x1b[K\x1b[1A\x1b[2K\r\x1b[K[0/2] updating udf…_summary …");
    show({ type: "end", address: "udf.sales_and_marketing/weekly_summary", action: "update", status: "done" });
    expect(chunks.at(-1)).toBe("\r\x1b[K[1/2] updating udf…_summary …");
    reported = 20; // narrowed again: the 29-column line is on two rows of 20
    show({ type: "end", address: "udf.sales_and_marketing/monthly_summary", action: "update", status: "done" });
    expect(chunks.slice(-2).join("")).toBe("\r\x1b[K\x1b[1A\x1b[2K\r\x1b[K");
  });

  it("redraws the status line at most once per interval, the latest state when the time is up, and writes failures and the final clear at once", () => {
    vi.useFakeTimers();
    try {
      const { stream, chunks } = fakeStream(true);
      const show = progressDisplay(stream, { statusIntervalMs: 100 });
      show({ type: "start", total: 4 });
      for (const slug of ["a", "b", "c"]) show({ type: "begin", address: `udf.sales/${slug}`, action: "create" });
      show({ type: "end", address: "udf.sales/a", action: "create", status: "done" });
      // Drawn at the start; the four events since then wait for the interval.
      expect(chunks).toEqual(["\r\x1b[K[0/4]"]);
      vi.advanceTimersByTime(100);
      expect(chunks.at(-1)).toBe("\r\x1b[K[1/4] creating udf.sales/c … (+1 more)");
      expect(chunks).toHaveLength(2);
      show({ type: "end", address: "udf.sales/b", action: "create", status: "failed", message: "409 Conflict" });
      expect(chunks.slice(-2)).toEqual([
        "\r\x1b[K✗ failed to create udf.sales/b: 409 Conflict\n",
        "\r\x1b[K[2/4] creating udf.sales/c …",
      ]);
      show({ type: "begin", address: "udf.sales/d", action: "create" });
      show({ type: "end", address: "udf.sales/c", action: "create", status: "done" });
      show({ type: "end", address: "udf.sales/d", action: "create", status: "done" });
      expect(chunks.at(-1)).toBe("\r\x1b[K");
      vi.advanceTimersByTime(1000);
      expect(chunks.at(-1)).toBe("\r\x1b[K");
    } finally {
      vi.useRealTimers();
    }
  });
});

const PLAN: Plan = {
  version: 1,
  project: "p",
  target: "default",
  summary: {} as Plan["summary"],
  orphans: [],
  unmanaged: [],
  blocks: [],
  warnings: [],
  actions: [
    { address: "canvas.sales", kind: "Canvas", action: "create", fields: [], notes: [] },
    ...["a", "b", "c"].map((slug) => ({
      address: `udf.sales/${slug}`,
      kind: "Udf" as const,
      action: "create" as const,
      fields: [],
      notes: [],
      references: ["canvas.sales"],
    })),
    { address: "secret.KEY", kind: "Secret", action: "update", fields: [], notes: [] },
  ],
};

describe("progress outside a terminal, with the plan (apply without --verbose)", () => {
  const events: ProgressEvent[] = [
    { type: "start", total: 5 },
    { type: "end", address: "secret.KEY", action: "update", status: "done" },
    { type: "end", address: "canvas.sales", action: "create", status: "done" },
    { type: "end", address: "udf.sales/a", action: "create", status: "done" },
    { type: "end", address: "udf.sales/b", action: "create", status: "failed", message: "409 Conflict" },
    { type: "end", address: "udf.sales/c", action: "create", status: "done" },
  ];

  it("writes each failure, and one line per canvas (or kind) once all its actions have finished", () => {
    const { stream, text } = fakeStream(false);
    const show = progressDisplay(stream, { plan: () => PLAN });
    events.forEach(show);
    expect(text()).toBe(
      "[1/5] secrets: 1 done\n" +
        "[4/5] failed create udf.sales/b: 409 Conflict\n" +
        "[5/5] canvas.sales: 3 done, 1 failed\n",
    );
  });

  it("says how far it got when a canvas takes long and nothing was written for 10 seconds", () => {
    vi.useFakeTimers({ now: 0 });
    try {
      const { stream, text } = fakeStream(false);
      const show = progressDisplay(stream, { plan: () => PLAN });
      show({ type: "start", total: 5 });
      show({ type: "end", address: "canvas.sales", action: "create", status: "done" });
      vi.setSystemTime(10_000);
      show({ type: "end", address: "udf.sales/a", action: "create", status: "done" });
      vi.setSystemTime(12_000);
      show({ type: "end", address: "udf.sales/b", action: "create", status: "done" });
      expect(text()).toBe("[2/5] 2 of 5 finished\n");
    } finally {
      vi.useRealTimers();
    }
  });

  it("WHEN an interrupt skips every step not started THEN the first skip is a line, the others are counted in the canvas's line", () => {
    const { stream, text } = fakeStream(false);
    const show = progressDisplay(stream, { plan: () => PLAN });
    show({ type: "start", total: 5 });
    show({ type: "end", address: "canvas.sales", action: "create", status: "done" });
    for (const slug of ["a", "b", "c"])
      show({
        type: "end",
        address: `udf.sales/${slug}`,
        action: "create",
        status: "skipped",
        message: "interrupted (SIGINT)",
      });
    show({ type: "end", address: "secret.KEY", action: "update", status: "skipped", message: "interrupted (SIGINT)" });
    expect(text()).toBe(
      "[2/5] skipped create udf.sales/a: interrupted (SIGINT)\n" +
        "[4/5] canvas.sales: 1 done, 3 skipped\n" +
        "[5/5] secrets: 0 done, 1 skipped\n",
    );
  });

  it("with --verbose writes one line per finished action", () => {
    const { stream, text } = fakeStream(false);
    const show = progressDisplay(stream, { plan: () => PLAN, verbose: true });
    events.forEach(show);
    expect(text().split("\n")).toHaveLength(6);
    expect(text()).toContain("[3/5] done create udf.sales/a\n");
  });
});
