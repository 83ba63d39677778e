/**
 * One error family: every error class under src/ extends SvcError (read from the source, so a new
 * class is checked the day it is written), every code is snake_case, and secrets never reach a message.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ApiError } from "../src/api/errors";
import { ERROR_CODE, errorCodeOf, SvcError } from "../src/errors";
import { JailError } from "../src/repository/jail";
import { LockedError, StateFileError } from "../src/reconcile/state/lock-errors";

const SRC = join(__dirname, "../src");
const BUILT_IN = /^(?:Error|TypeError|RangeError|SyntaxError|AggregateError)$/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : name.endsWith(".ts") ? [path] : [];
  });
}

interface Declared {
  name: string;
  base: string;
  file: string;
  text: string;
}

/** Every `class X extends Y` under src/, with the text of its body up to the next class. */
function classes(): Declared[] {
  return filesUnder(SRC).flatMap((file) => {
    const source = readFileSync(file, "utf8");
    const found = [...source.matchAll(/\bclass\s+(\w+)\s+extends\s+([\w.]+)/g)];
    return found.map((m, i) => ({
      name: m[1]!,
      base: m[2]!,
      file: relative(SRC, file),
      text: source.slice(m.index, found[i + 1]?.index ?? source.length),
    }));
  });
}

describe("GIVEN every class declared under src/", () => {
  const all = classes();
  const byName = new Map(all.map((c) => [c.name, c]));
  /** The chain of bases up to the first one not declared in src/. */
  const chain = (c: Declared): string[] => {
    const out = [c.name];
    for (let at = c; byName.has(at.base) && !out.includes(at.base); at = byName.get(at.base)!) out.push(at.base);
    return [...out, byName.get(out.at(-1)!)!.base];
  };
  const errorClasses = all.filter(
    (c) => c.name !== "SvcError" && (/Error$/.test(c.base) || chain(c).includes("SvcError")),
  );

  it("THEN the check finds the error classes it is about", () => {
    expect(errorClasses.map((c) => c.name)).toEqual(
      expect.arrayContaining(["ApiError", "JailError", "LockedError", "HttpError", "CliUsageError"]),
    );
  });

  it("THEN every error class extends SvcError (directly or through another of the family)", () => {
    const outside = errorClasses
      .filter((c) => !chain(c).includes("SvcError") || BUILT_IN.test(c.base))
      .map((c) => `${c.file}: ${c.name} extends ${c.base}`);
    expect(outside).toEqual([]);
  });

  it("THEN every code an error class gives its base is snake_case", () => {
    const codes = errorClasses.flatMap((c) =>
      [...c.text.matchAll(/\bsuper\(\s*"([^"]*)"/g)].map((m) => ({ at: `${c.file}: ${c.name}`, code: m[1]! })),
    );
    expect(codes.length).toBeGreaterThan(10);
    expect(codes.filter((c) => !ERROR_CODE.test(c.code))).toEqual([]);
  });
});

describe("GIVEN every throw under src/", () => {
  it("THEN none throws a plain Error: each names a code a script reading --json can branch on", () => {
    const plain = filesUnder(SRC).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) =>
          /^\s*(?:\/\/|\*)/.test(line) || !/\bthrow (?:.*\? )?new (?:Error|TypeError|RangeError)\(/.test(line)
            ? []
            : [`${relative(SRC, file)}:${i + 1}`],
        ),
    );
    expect(plain).toEqual([]);
  });
});

describe("GIVEN an error of the family", () => {
  it("WHEN it is built with secrets THEN its message and file hold none of them", () => {
    const scrubbed = new SvcError("example_failed", "token s3cr3t-value leaked", {
      file: "a/s3cr3t-value.yaml",
      line: 3,
      column: 7,
      secrets: ["s3cr3t-value"],
    });
    expect(scrubbed.message).toBe("token [REDACTED] leaked");
    expect(scrubbed.file).toBe("a/[REDACTED].yaml");
    expect(scrubbed.where).toBe("a/[REDACTED].yaml:3:7");
    expect(scrubbed.toJSON()).toEqual({
      name: "SvcError",
      code: "example_failed",
      message: "token [REDACTED] leaked",
      file: "a/[REDACTED].yaml",
      line: 3,
      column: 7,
    });
  });

  it("THEN subclasses keep their codes, names and files, and ApiError still scrubs its path", () => {
    expect(new JailError("x/../../etc", "refused")).toMatchObject({ code: "repository_jail", file: "x/../../etc" });
    expect(new StateFileError("s.json", "bad")).toMatchObject({ code: "state_file_invalid", file: "s.json" });
    const locked = new LockedError("here", {
      id: "1",
      owner: "me",
      operation: "apply",
      acquiredAt: "t",
      expiresAt: "u",
    } as never);
    expect(locked).toMatchObject({ code: "locked", name: "LockedError" });
    expect(locked).toBeInstanceOf(SvcError);
    const api = new ApiError({
      code: "not_found",
      status: 404,
      method: "GET",
      path: "/x/tok-1234",
      secrets: ["tok-1234"],
    });
    expect(api).toBeInstanceOf(SvcError);
    expect(api.message).toBe("GET /x/[REDACTED] failed with 404");
    expect(errorCodeOf(api)).toBe("not_found");
    expect(errorCodeOf(new Error("plain"))).toBe("failed");
  });
});
