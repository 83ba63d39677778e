/**
 * The bin's bundle (scripts/build-cli.mjs) keeps class names as written, since an error's name is
 * its class's: a build where esbuild had to rename one of ours (two modules declaring a class of
 * the same name) is refused.
 */
import { describe, expect, it } from "vitest";
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
