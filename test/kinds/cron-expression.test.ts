import { describe, expect, it } from "vitest";
import { formatCron, normalizeSchedule, parseCron } from "../../src/kinds/cronjob/cron-expression";

const HOURS = Array.from({ length: 24 }, (_, h) => h);
const ok = (expr: string) => {
  const r = parseCron(expr);
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.schedule;
};
const errors = (expr: string) => {
  const r = parseCron(expr);
  if (r.ok) throw new Error(`expected ${expr} to be refused`);
  return r.errors;
};

describe("parseCron", () => {
  it("GIVEN weekdays at 06:00 THEN it gives the platform's arrays", () => {
    expect(ok("0 6 * * 1-5")).toEqual({
      minute: [0],
      hour: [6],
      dayOfMonth: [],
      month: [],
      dayOfWeek: [1, 2, 3, 4, 5],
    });
  });

  it("GIVEN * for the hour THEN every hour is listed explicitly (the spec has no 'empty = every' for hour)", () => {
    expect(ok("30 * * * *")).toEqual({ minute: [30], hour: HOURS, dayOfMonth: [], month: [], dayOfWeek: [] });
  });

  it("reads lists, ranges, steps and ranges with steps", () => {
    expect(ok("5 */6 1,15 1-3 *")).toEqual({
      minute: [5],
      hour: [0, 6, 12, 18],
      dayOfMonth: [1, 15],
      month: [1, 2, 3],
      dayOfWeek: [],
    });
    expect(ok("0 10-20/5 * * *").hour).toEqual([10, 15, 20]);
    expect(ok("0 8/4 * * *").hour).toEqual([8, 12, 16, 20]);
    expect(ok("0 1,3,1 * * *").hour).toEqual([1, 3]);
  });

  it("reads month and day names in any case, also in ranges", () => {
    expect(ok("0 6 * JAN,jul MON-FRI")).toMatchObject({ month: [1, 7], dayOfWeek: [1, 2, 3, 4, 5] });
    expect(ok("0 6 * * sun,Sat")).toMatchObject({ dayOfWeek: [0, 6] });
  });

  it("stores Sunday as 0 when written 7", () => {
    expect(ok("0 0 * * 7").dayOfWeek).toEqual([0]);
    expect(ok("0 0 * * 5-7").dayOfWeek).toEqual([0, 5, 6]);
  });

  it("normalizes a list covering a whole range to [] (every), so equivalent schedules are equal", () => {
    expect(ok("0 0 1-31 1-12 0-6")).toEqual(ok("0 0 * * *"));
    expect(ok("0 0 * * 1-7")).toEqual(ok("0 0 * * *"));
    expect(ok("0 0-23 * * *")).toEqual(ok("0 * * * *"));
  });

  it("accepts the macros @hourly, @daily, @weekly, @monthly and @yearly", () => {
    expect(ok("@daily")).toEqual(ok("0 0 * * *"));
    expect(ok("@hourly")).toEqual(ok("0 * * * *"));
    expect(ok("@weekly").dayOfWeek).toEqual([0]);
    expect(ok("@monthly").dayOfMonth).toEqual([1]);
    expect(ok("@yearly")).toMatchObject({ dayOfMonth: [1], month: [1] });
  });

  it("GIVEN more than one minute value THEN it is refused, saying why and what to do instead", () => {
    expect(errors("*/15 * * * *")).toEqual([
      'The minute field "*/15" runs 4 times an hour (0,15,30,45). The platform runs a cronjob at most once an hour, at exactly one minute; give one minute value (e.g. "0"), or declare several cronjobs, one per minute value.',
    ]);
    expect(errors("* * * * *")[0]).toMatch(
      /^The minute field "\*" runs every minute\. The platform runs a cronjob at most once an hour/,
    );
    expect(errors("0,30 9 * * *")[0]).toMatch(/runs 2 times an hour \(0,30\)/);
  });

  it("GIVEN a wrong number of fields THEN it says how many it found and the expected form", () => {
    expect(errors("0 6 *")).toEqual([
      'A cron expression has 5 fields "minute hour day-of-month month day-of-week", e.g. "0 6 * * 1-5"; found 3 in "0 6 *".',
    ]);
    expect(errors("0 6 * * * 2025")[0]).toMatch(/found 6/);
  });

  it("reports every bad field at once, naming the field and the part at fault", () => {
    expect(errors("0 24 0 FOO 1-x")).toEqual([
      'Invalid hour field "24": 24 is out of range 0-23.',
      'Invalid day of month field "0": 0 is out of range 1-31.',
      'Invalid month field "FOO": "FOO" is not a number from 1 to 12 or a name JAN-DEC.',
      'Invalid day of week field "1-x": "x" is not a number from 0 to 7 or a name SUN-SAT.',
    ]);
  });

  it("refuses zero steps, reversed ranges and unsupported syntax", () => {
    expect(errors("0 */0 * * *")).toEqual([
      'Invalid hour field "*/0": the step in "*/0" must be a whole number above 0.',
    ]);
    expect(errors("0 20-5 * * *")).toEqual([
      'Invalid hour field "20-5": the range "20-5" goes from high to low; write it from low to high (wrap-around is not supported).',
    ]);
    expect(errors("0 6 L * *")).toEqual(['Invalid day of month field "L": "L" is not a number from 1 to 31.']);
    expect(errors("0 6 1,,2 * *")).toEqual([
      'Invalid day of month field "1,,2": "" is not a value, a range "a-b", a list "a,b" or a step "*/n".',
    ]);
    expect(errors("0 6 1-2-3 * *")[0]).toMatch(/"1-2-3" is not a value/);
  });

  it("reports the minute problem together with the other fields' problems", () => {
    expect(errors("*/30 25 * * *")).toHaveLength(2);
  });
});

describe("formatCron", () => {
  it("writes the canonical expression of a schedule, compressing runs into ranges", () => {
    expect(formatCron(ok("0 6 * * MON-FRI"))).toBe("0 6 * * 1-5");
    expect(formatCron(ok("15 * * * *"))).toBe("15 * * * *");
    expect(formatCron(ok("0 1,2,3,7,9,10 1 1,2 *"))).toBe("0 1-3,7,9,10 1 1,2 *");
  });

  it("reads [] for the hour as every hour", () => {
    expect(formatCron({ minute: [0], hour: [], dayOfMonth: [], month: [], dayOfWeek: [] })).toBe("0 * * * *");
    expect(normalizeSchedule({ minute: [0], hour: [], dayOfMonth: [], month: [], dayOfWeek: [] }).hour).toEqual(HOURS);
  });

  it("round-trips: parsing the formatted expression gives the same arrays", () => {
    for (const e of ["0 6 * * 1-5", "5 */6 1,15 1-3 *", "59 23 31 12 0", "@weekly"])
      expect(ok(formatCron(ok(e)))).toEqual(ok(e));
  });
});
