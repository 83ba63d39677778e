/**
 * Whether a repository still loads once some of its files are rewritten: `import --keep` checks
 * its edits this way before writing any, so it leaves a repository that validates or writes
 * nothing. The check runs on a copy in a temporary folder (the state folder and `.git` left out);
 * the repository itself is not touched.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { loadRepository } from "../load";
import { formatLoadError } from "../../model/desired";

/** The load errors of `root` with `files` (repository-relative path → text) written; empty when it loads. */
export async function editedRepositoryErrors(
  root: string,
  files: readonly { path: string; text: string }[],
  opts: { target?: string; env: Record<string, string | undefined> },
): Promise<string[]> {
  const work = await mkdtemp(join(tmpdir(), "svc-iac-keep-check-"));
  // The folder keeps its name: an svc.yaml without a project name takes it from there.
  const copy = join(work, basename(root));
  try {
    await cp(root, copy, {
      recursive: true,
      filter: (src) => ![".git", ".svc-iac"].includes(basename(src)) || src === root,
    });
    for (const f of files) {
      await mkdir(dirname(join(copy, f.path)), { recursive: true });
      await writeFile(join(copy, f.path), f.text);
    }
    const loaded = await loadRepository(copy, { target: opts.target, env: opts.env });
    return loaded.ok ? [] : loaded.errors.map(formatLoadError);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
