/**
 * A monorepo in a real git repository: projects under `domains/pNN/`, each with one canvas and
 * one UDF, the first three reading a shared helper module (`shared/geo.py`) through `headers:`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

export const projectName = (i: number) => `p${String(i).padStart(2, "0")}`;

/** The files of project `i`; `readsShared` lists shared/geo.py among its UDF's helper modules. */
export function projectFiles(
  i: number,
  opts: { readsShared?: boolean; staging?: boolean } = {},
): Record<string, string> {
  const name = projectName(i);
  const dir = `domains/${name}`;
  return {
    [`${dir}/svc.yaml`]: `project: ${name}\n${opts.staging ? "targets:\n  staging:\n    name_prefix: stg_\n" : ""}`,
    [`${dir}/canvases/${name}_canvas/canvas.yaml`]: "access_scope: team\n",
    [`${dir}/canvases/${name}_canvas/hello.py`]: `def udf(name: str = "${name}"):\n    return name\n`,
    ...(opts.readsShared
      ? {
          [`${dir}/canvases/${name}_canvas/hello.yaml`]:
            "headers:\n  - module: geo\n    file: ../../../../shared/geo.py\n",
        }
      : {}),
  };
}

/** A git repository of `count` projects (the first three read shared/geo.py; every fourth has a staging target), committed on `main`. */
export function monorepo(count: number): string {
  const root = mkdtempSync(join(tmpdir(), "svc-monorepo-"));
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.email", "test@example.com");
  git(root, "config", "user.name", "test");
  writeFiles(root, { "README.md": "# monorepo\n", "shared/geo.py": "def area(x):\n    return x\n" });
  for (let i = 1; i <= count; i++) writeFiles(root, projectFiles(i, { readsShared: i <= 3, staging: i % 4 === 0 }));
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "projects");
  return root;
}
