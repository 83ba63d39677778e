import { describe, expect, it } from "vitest";
import { AREAS } from "../../src/emulator/areas";
import { createRouter } from "../../src/emulator/server";
import { readPage } from "./markdown-pages";

describe("GIVEN the endpoint table of docs/emulator.md (the platform API the emulator implements)", () => {
  const page = readPage("docs/emulator.md");
  const rows = [...page.text.matchAll(/^\| [^|]* \| (GET|POST|PUT|DELETE|PATCH) \| `([^`]+)` \|$/gm)].map((m) => ({
    method: m[1]!,
    path: m[2]!,
  }));
  const router = createRouter(AREAS.flatMap((a) => a.routes));
  const hosts = [...new Set(AREAS.flatMap((a) => a.routes.map((r) => r.host ?? "api")))];

  it("THEN it lists the API's endpoints", () => {
    expect(rows.length).toBeGreaterThan(80);
  });

  it("THEN the emulator routes every endpoint it lists (none answers 'no such route')", () => {
    const unrouted = rows.filter(({ method, path }) => {
      const concrete = path.replace(/\{[^}]+\}/g, "x1");
      return !hosts.some((h) => router.match(h, method, concrete).kind === "found");
    });
    expect(unrouted).toEqual([]);
  });
});
