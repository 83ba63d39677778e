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
