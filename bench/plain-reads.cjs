// The repository jail taken out, for one figure of `npm run bench` only: preloaded into the
// unbundled command (`node --require bench/plain-reads.cjs dist/cli/program.js validate DIR`), it
// replaces the jail's reads and listings with plain ones: readFileSync and readdirSync of the path,
// no check of where a link leads, no refusal of special files, no size bound, no UTF-8 check. The
// same command with and without it tells what the jail's safety checks cost, everything else
// (Node's start, the modules, building and checking each record) being equal. Never loaded by
// svc-iac itself.
const { readdirSync, readFileSync } = require("node:fs");
const { join } = require("node:path");
const { RepositoryJail } = require(join(__dirname, "../dist/repository/jail.js"));

/** A failed plain read as the jail reports a missing file or a folder; anything else is thrown. */
function failure(e) {
  if (e.code === "EISDIR") return { kind: "missing", folder: true };
  if (e.code === "ENOENT" || e.code === "ENOTDIR") return { kind: "missing" };
  throw e;
}

const jail = RepositoryJail.prototype;
jail.readBytes = function readBytes(file) {
  try {
    return { kind: "bytes", data: readFileSync(join(this.base, file)) };
  } catch (e) {
    return failure(e);
  }
};
jail.readText = function readText(file) {
  try {
    return { kind: "text", text: readFileSync(join(this.base, file), "utf8") };
  } catch (e) {
    return failure(e);
  }
};
jail.listFolder = function listFolder(folder) {
  let listed;
  try {
    listed = readdirSync(join(this.base, folder), { withFileTypes: true });
  } catch (e) {
    if (e.code === "ENOENT" || e.code === "ENOTDIR") return { kind: "entries", entries: [] };
    throw e;
  }
  const entries = listed
    .filter((e) => !e.name.startsWith("."))
    .map((e) => ({ name: e.name, isFolder: e.isDirectory() }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { kind: "entries", entries };
};
