/**
 * The tree shows the architecture: the kinds (`src/kinds`, one folder per kind) sit below the engine
 * (`src/reconcile`) and never reach up into it; what both need lives in `src/model`, below both;
 * the engine is grouped by step, with only a few files loose at its top, and each step folder says
 * in its main file what it holds and what it may import.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(__dirname, "../src");
const MAX_LOOSE_FILES = 8;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : name.endsWith(".ts") ? [path] : [];
  });
}

/** Every relative module a file imports (static, dynamic, `require`, `typeof import`), as a path under `src/`. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [
    ...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)["'](\.{1,2}\/[^"']*)["']/gm),
  ].map((m) => m[1]);
  return specs.map((spec) =>
    relative(SRC, resolve(dirname(file), spec))
      .split(sep)
      .join("/"),
  );
}

/** `file: import` for every import of a file under `from` that lands in one of `forbidden` (folders under `src/`). */
function violations(from: string, allowed: (target: string) => boolean): string[] {
  return filesUnder(join(SRC, from)).flatMap((file) =>
    importsOf(file)
      .filter((target) => !allowed(target))
      .map((target) => `${relative(SRC, file).split(sep).join("/")} imports ${target}`),
  );
}

const inside = (folder: string) => (target: string) => target === folder || target.startsWith(`${folder}/`);

describe("GIVEN the source tree", () => {
  it("THEN no file under src/kinds imports from src/reconcile", () => {
    expect(violations("kinds", (target) => !inside("reconcile")(target))).toEqual([]);
  });

  it("THEN src/resources is gone: every kind lives in src/kinds/<kind>/ beside its definition.ts", () => {
    expect(existsSync(join(SRC, "resources"))).toBe(false);
    const folders = readdirSync(join(SRC, "kinds")).filter((name) => statSync(join(SRC, "kinds", name)).isDirectory());
    const kinds = folders.filter((name) => name !== "schema");
    expect(kinds.length).toBe(8);
    expect(kinds.filter((name) => !existsSync(join(SRC, "kinds", name, "definition.ts")))).toEqual([]);
  });

  it("THEN the engine never imports the emulator: the entry points give it the embedded one", () => {
    expect(violations("reconcile", (target) => !inside("emulator")(target))).toEqual([]);
  });

  it("THEN src/repository (the jail, bounded YAML, located diagnostics), below the engine and the emulator, imports only the model and the error family", () => {
    const below = (t: string) =>
      inside("repository")(t) || inside("model")(t) || t === "errors" || t === "scrub" || t === "errors.js";
    expect(violations("repository", below)).toEqual([]);
    expect(violations("emulator", (target) => !inside("reconcile")(target))).toEqual([]);
  });

  it("THEN no module imports itself through others (no import cycles, type-only imports included)", () => {
    const files = filesUnder(SRC);
    const key = (file: string) => relative(SRC, file).split(sep).join("/").replace(/\.ts$/, "");
    const resolveTarget = (target: string): string | undefined => {
      const base = target.replace(/\.js$/, "");
      if (existsSync(join(SRC, `${base}.ts`))) return base;
      if (existsSync(join(SRC, base, "index.ts"))) return `${base}/index`;
      return undefined;
    };
    const edges = new Map(files.map((f) => [key(f), importsOf(f).flatMap((t) => resolveTarget(t) ?? [])] as const));
    // Tarjan's strongly connected components: any component of more than one module is a cycle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    let counter = 0;
    const visit = (v: string): void => {
      index.set(v, counter);
      low.set(v, counter++);
      stack.push(v);
      onStack.add(v);
      for (const w of edges.get(v) ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        if (component.length > 1 || edges.get(v)?.includes(v)) cycles.push(component.sort());
      }
    };
    for (const v of edges.keys()) if (!index.has(v)) visit(v);
    expect(edges.size).toBeGreaterThan(100);
    expect(cycles).toEqual([]);
  });

  it("THEN src/model, below the kinds and the engine, imports nothing outside itself", () => {
    expect(violations("model", inside("model"))).toEqual([]);
  });

  it(`THEN src/reconcile has at most ${MAX_LOOSE_FILES} loose files beside its step folders`, () => {
    const loose = readdirSync(join(SRC, "reconcile")).filter((name) => statSync(join(SRC, "reconcile", name)).isFile());
    expect(loose.length, `loose files: ${loose.join(", ")}`).toBeLessThanOrEqual(MAX_LOOSE_FILES);
  });

  it("THEN every step folder of src/reconcile opens with a comment on what it holds and what it may import", () => {
    const folders = readdirSync(join(SRC, "reconcile")).filter((name) =>
      statSync(join(SRC, "reconcile", name)).isDirectory(),
    );
    const undocumented = folders.filter((folder) => {
      const files = readdirSync(join(SRC, "reconcile", folder)).filter((name) => name.endsWith(".ts"));
      return !files.some((name) => {
        const head = /^\/\*\*[\s\S]*?\*\//.exec(readFileSync(join(SRC, "reconcile", folder, name), "utf8"))?.[0] ?? "";
        return head.includes(`Folder \`${folder}/\``) && /may import|imports nothing/i.test(head);
      });
    });
    expect(folders.length).toBeGreaterThan(0);
    expect(undocumented).toEqual([]);
  });

  it("THEN every relative import under src resolves to a file (the checks above read real paths)", () => {
    const unresolved = filesUnder(SRC).flatMap((file) =>
      importsOf(file)
        .filter((target) => !/\.(json)$/.test(target))
        .filter((target) => {
          const base = join(SRC, target.replace(/\.js$/, ""));
          return ![`${base}.ts`, join(base, "index.ts"), base].some((p) => existsSync(p) && statSync(p).isFile());
        })
        .map((target) => `${relative(SRC, file)} imports ${target}`),
    );
    expect(unresolved).toEqual([]);
  });
});

/**
 * Every module that may open or list a file itself, rather than through the repository's jail
 * (`src/repository/jail.ts`), and why what it reads is not the repository's to choose. A new
 * module reading files fails this test until it goes through the jail or is added here with its reason.
 */
const READS_OUTSIDE_THE_JAIL: Record<string, string> = {
  "repository/jail.ts": "the jail itself",
  "python-interpreter.ts":
    "the first four bytes of the interpreter on PATH (the runner's), to tell a program from a shim",
  "reconcile/load/python-check-cache.ts": "the parse cache under ~/.cache/svc-iac (SVC_CACHE_DIR), the runner's",
  "reconcile/load/repository-digest.ts":
    "hashes files it lists without following links (O_NOFOLLOW, O_NONBLOCK, regular files only)",
  "reconcile/projects/find-projects.ts":
    "lists folder names only, links not followed; svc.yaml and settings are read through the jail",
  "reconcile/apply/outputs-file.ts": "an --outputs file the operator named; inside the repository through the jail",
  "reconcile/state/local-backend.ts": "the state folder, which the jail checked and created (RepositoryJail.folder)",
  "reconcile/state/lock-file.ts": "/proc/sys/kernel/random/boot_id",
  "reconcile/state/other-targets.ts": "lists the names of the state folders beside this target's",
  "github/action.ts": "opens report files to write, with O_NOFOLLOW; svc.yaml is read through the jail",
  "github/context.ts": "the runner's event payload (GITHUB_EVENT_PATH)",
  "provider/plugin/server.ts": "the package's own package.json",
  "kinds/udf/resource.ts":
    "a Pulumi program's codePath, chosen by the program (trusted), not by a repository under review",
  "emulator/emulator.ts": "the emulator's data folder, checked through the jail by the commands that embed it",
  "emulator/keys.ts": "the emulator's data folder",
  "emulator/object-store.ts": "the emulator's data folder",
  "emulator/seed-file.ts": "a seed file the operator named (--seed)",
  "emulator/datasets/dataset-spec.ts": "a dataset file the operator named in the seed",
};

describe("GIVEN every module of src that imports a way to read or list files from node:fs", () => {
  it("THEN each is the jail, or reads only what the runner or operator chose, for a reason written here", () => {
    const READS = /\b(readFile|readFileSync|createReadStream|open|openSync|readdir|readdirSync|opendir|opendirSync)\b/;
    const readers = filesUnder(SRC)
      .filter((file) => {
        const text = readFileSync(file, "utf8");
        const named = [...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*["']node:fs(?:\/promises)?["']/g)];
        return named.some((m) => READS.test(m[1]!)) || /import\s+\*\s+as\s+\w+\s+from\s+["']node:fs/.test(text);
      })
      .map((file) => relative(SRC, file).split(sep).join("/"))
      .sort();
    expect(readers.filter((f) => !(f in READS_OUTSIDE_THE_JAIL))).toEqual([]);
    // And the list holds no module that no longer reads.
    expect(Object.keys(READS_OUTSIDE_THE_JAIL).filter((f) => !readers.includes(f))).toEqual([]);
  });
});
