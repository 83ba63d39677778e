/** A copy of a fixture repository committed in a fresh git work tree (its state folder ignored), and git run in it. */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { copyRepo } from "./repo";

/** `git ARGS` in `dir` with a fixed author; its stdout, trimmed. */
export const git = (dir: string, ...args: string[]): string =>
  execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
    cwd: dir,
    encoding: "utf8",
  }).trim();

/** `test/fixtures/<fixture>` copied, `git init`-ed and committed once (`.svc-iac/` ignored). */
export function gitRepo(fixture = "valid-full"): string {
  const dir = copyRepo(fixture);
  writeFileSync(join(dir, ".gitignore"), ".svc-iac/\n");
  git(dir, "init", "-q");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "first");
  return dir;
}
