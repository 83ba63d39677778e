/**
 * Files and folders whose names differ only in case (`Hello.py` beside `hello.py`, `Daily.yaml`
 * beside `daily.yaml`) are refused: a checkout on a case-insensitive file system (macOS, Windows)
 * keeps only one of them, so the repository would declare different objects there.
 */
import type { Diagnostics } from "../../repository/diagnostics";

/**
 * Reports names that differ only in case (`Hello.py` beside `hello.py`): the platform would hold
 * two objects, and a checkout on a case-insensitive file system keeps only one of the files.
 */
export function refuseCaseTwins(files: readonly string[], what: string, names: string, diag: Diagnostics): void {
  const byLower = new Map<string, string>();
  for (const f of files) {
    const twin = byLower.get(f.toLowerCase());
    if (twin === undefined) byLower.set(f.toLowerCase(), f);
    else {
      const message = (other: string) =>
        `found ${what} ${twin} and ${f}, which differ only in case, expected ${names} that differ in more than case: a checkout on a case-insensitive file system keeps only one of them (${other} is the other); rename one`;
      diag.atFile(twin, message(f));
      diag.atFile(f, message(twin));
    }
  }
}
