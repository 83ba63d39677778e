/** Matches method + path to a route. Literal segments win over parameters; `%2F` stays inside a segment. */
import type { RouteDef } from "./route";

interface Compiled {
  def: RouteDef;
  segments: { literal?: string; param?: string }[];
}

export type Match =
  | { kind: "found"; def: RouteDef; params: Record<string, string> }
  | { kind: "method_not_allowed"; allowed: string[] }
  | { kind: "not_found" };

export class Router {
  private readonly routes: Compiled[] = [];

  add(def: RouteDef): void {
    const segments = def.path
      .split("/")
      .filter(Boolean)
      .map((s) => (s.startsWith(":") ? { param: s.slice(1) } : { literal: s }));
    this.routes.push({ def, segments });
    // Specific first: compare segment by segment, a literal before a parameter.
    this.routes.sort((a, b) => {
      for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
        const la = a.segments[i].literal !== undefined,
          lb = b.segments[i].literal !== undefined;
        if (la !== lb) return la ? -1 : 1;
      }
      return 0;
    });
  }

  match(host: string, method: string, rawPath: string): Match {
    let parts: string[];
    try {
      parts = rawPath.split("/").filter(Boolean).map(decodeURIComponent);
    } catch {
      return { kind: "not_found" };
    }
    const allowed: string[] = [];
    for (const r of this.routes) {
      if ((r.def.host ?? "api") !== host || r.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const s = r.segments[i];
        if (s.literal !== undefined) ok = s.literal === parts[i];
        else params[s.param!] = parts[i];
      }
      if (!ok) continue;
      if (r.def.method === method) return { kind: "found", def: r.def, params };
      allowed.push(r.def.method);
    }
    return allowed.length ? { kind: "method_not_allowed", allowed } : { kind: "not_found" };
  }
}
