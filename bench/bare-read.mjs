// The floor under `validate`: a bare read and parse of a repository, run as its own process
// (`node bench/bare-read.mjs DIR`) as validate is. Every file under DIR is read whole with a plain
// readFileSync, every .yaml file parsed with the `yaml` library the loader uses and every .json file
// (the platform's own layout) with JSON.parse: no jail, no bounds, no schema, no Python. Prints
// {files, yamlFiles, jsonFiles}.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

const root = process.argv[2];
let files = 0;
let yamlFiles = 0;
let jsonFiles = 0;
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, e.name);
    if (e.isDirectory()) walk(full);
    else if (e.isFile()) {
      const text = readFileSync(full, "utf8");
      files++;
      if (e.name.endsWith(".yaml")) {
        parse(text);
        yamlFiles++;
      } else if (e.name.endsWith(".json")) {
        JSON.parse(text);
        jsonFiles++;
      }
    }
  }
};
walk(root);
process.stdout.write(`${JSON.stringify({ files, yamlFiles, jsonFiles })}\n`);
