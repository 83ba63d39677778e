/**
 * The bin's bundle (scripts/build-cli.mjs): zod's English locale alone inside it, the emulator's
 * dataset libraries left to node_modules; and class names kept as written, since an error's name is
 * its class's: a build where esbuild had to rename one of ours (two modules declaring a class of
 * the same name) is refused.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtCli } from "../helpers/repo";
// @ts-expect-error: a build script, plain JavaScript without declarations
import { refuseRenamedClasses } from "../../scripts/build-cli.mjs";

const OURS = new Set(["JailError", "ApiError"]);

describe("GIVEN the bundle's check of class names", () => {
  it("WHEN one of our classes was renamed (as a class, or as a module's lazily made class) THEN the build is refused naming it", () => {
    expect(() => refuseRenamedClasses("class JailError2 extends Error {}", OURS)).toThrow(/renamed JailError2/);
    expect(() => refuseRenamedClasses("var ApiError2=class extends SvcError{}", OURS)).toThrow(/renamed ApiError2/);
  });

  it("WHEN the names are as written, or a dependency's class ends in a digit THEN it passes", () => {
    expect(() => refuseRenamedClasses("class JailError extends Error {} var ApiError=class{}", OURS)).not.toThrow();
    expect(() => refuseRenamedClasses("var Sha256=class extends Hash{}", OURS)).not.toThrow();
  });

  it("WHEN it reads the sources THEN the classes written in src/ are known, so the built bundle passes", () => {
    expect(() => refuseRenamedClasses("class RepositoryJail {}")).not.toThrow();
    expect(() => refuseRenamedClasses("var RepositoryJail2=class{}")).toThrow(/RepositoryJail2/);
  });
});

describe("GIVEN the built bundle", () => {
  it("THEN it holds zod's English locale and no other, and loads the dataset libraries from node_modules", () => {
    const bundle = readFileSync(join(builtCli(), "..", "program.bundle.js"), "utf8");
    expect(bundle).toContain("node_modules/zod/v4/locales/en.js");
    expect(bundle).not.toMatch(/node_modules\/zod\/v4\/locales\/(?!en\.js|index\.js)[a-zA-Z-]+\.js/);
    for (const outside of ["h3-js", "hyparquet"]) {
      expect(bundle).toContain(`require("${outside}")`);
      expect(bundle).not.toContain(`node_modules/${outside}/`);
    }
  }, 120_000);
});
