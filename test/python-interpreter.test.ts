/**
 * Finding the interpreter: a compiled program on PATH is taken as it is (no process is started to
 * ask it where it lives, so a check answered from its cache starts no Python at all); a script,
 * such as pyenv's shim, is asked once for `sys.executable`.
 */
import { chmodSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolvePython } from "../src/python-interpreter";

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

describe("GIVEN an interpreter name on PATH", () => {
  it("WHEN it is a compiled program (here /bin/true, which would print no sys.executable if run) THEN it is taken as found, without running it", async () => {
    const bin = mkdtempSync(join(tmpdir(), "svc-python-elf-"));
    symlinkSync("/bin/true", join(bin, "python-elf-probe"));
    process.env.PATH = `${bin}:${PATH}`;
    expect(await resolvePython("python-elf-probe")).toEqual({ ok: true, executable: join(bin, "python-elf-probe") });
  });

  it("WHEN it is a script (a shim) THEN it is run once and its sys.executable is the interpreter", async () => {
    const bin = mkdtempSync(join(tmpdir(), "svc-python-shim-"));
    const shim = join(bin, "python-shim-probe");
    writeFileSync(shim, "#!/bin/sh\necho /opt/real/python3.11\n");
    chmodSync(shim, 0o755);
    process.env.PATH = `${bin}:${PATH}`;
    expect(await resolvePython("python-shim-probe")).toEqual({ ok: true, executable: "/opt/real/python3.11" });
  });

  it("WHEN it is not found THEN the failure says so and is not kept (a later install is found)", async () => {
    const bin = mkdtempSync(join(tmpdir(), "svc-python-none-"));
    process.env.PATH = bin;
    const missing = await resolvePython("python-missing-probe");
    expect(missing.ok).toBe(false);
    symlinkSync("/bin/true", join(bin, "python-missing-probe"));
    expect((await resolvePython("python-missing-probe")).ok).toBe(true);
  });
});
