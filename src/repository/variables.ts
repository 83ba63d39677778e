/**
 * `${var.NAME}` and `${env.NAME}` in string values. A string that is exactly one reference takes
 * the referenced value with its type (`n: ${var.n}` stays a number); references inside a longer
 * string are replaced by their text. `$${` writes a literal `${`.
 *
 * Secret fields accept only one `${env.NAME}` reference: their values never come from the
 * repository and never appear in a message (messages say "the value of NAME").
 */
import { describeFound, didYouMean } from "./diagnostics";

export type Resolved = { ok: true; value: unknown } | { ok: false; message?: string };
export type ResolvedSecret = { ok: true; value: string; envName: string } | { ok: false; message: string };

const NAME = "[A-Za-z_][A-Za-z0-9_]*";
const WHOLE = new RegExp(`^\\$\\{(var|env)\\.(${NAME})\\}$`);
const REFERENCE = new RegExp(`^(var|env)\\.(${NAME})$`);
const SECRET_REFERENCE = new RegExp(`^\\$\\{env\\.(${NAME})\\}$`);

export interface ResolverOptions {
  /** Effective variables (target over project); `undefined` when svc.yaml could not be read (references are then not checked). */
  variables: Record<string, unknown> | undefined;
  env: Record<string, string | undefined>;
  /** How messages name the variables' origin, e.g. `target "staging"`. */
  target: string;
  /** False while reading the variables themselves: they may use the environment, not each other. */
  allowVariables?: boolean;
}

/** The value of a variable whose own value has an error (reported in svc.yaml): references to it are not checked. */
export const UNRESOLVED: unique symbol = Symbol("unresolved variable");

/**
 * The first `}` after the `${` at `start`; `known` is the one found for an earlier `${`, the same
 * for every `${` before it: a value of 150,000 `${env.` and one `}` is scanned once, not 150,000
 * times (seconds of a load for 900 KB of repository text).
 */
function closingBrace(text: string, start: number, known: number): number {
  return known >= start + 2 ? known : text.indexOf("}", start + 2);
}

/**
 * The first `${var.NAME}` / `${env.NAME}` reference written in `text`, as written (`${var.city}`);
 * `$${` is a literal and does not count. Undefined when there is none.
 */
export function firstReference(text: string): string | undefined {
  let end = -1;
  for (let i = text.indexOf("${"); i >= 0; i = text.indexOf("${", i + 2)) {
    if (i > 0 && text[i - 1] === "$") continue;
    end = closingBrace(text, i, end);
    if (end < 0) return undefined;
    if (REFERENCE.test(text.slice(i + 2, end))) return text.slice(i, end + 1);
  }
  return undefined;
}

/**
 * The environment variables `text` reads with `${env.NAME}` (`$${` is a literal and does not count).
 * @example envNamesIn("pr_${env.PR_NUMBER}_$${env.X}") // ["PR_NUMBER"]
 */
export function envNamesIn(text: string): string[] {
  const names: string[] = [];
  let end = -1;
  for (let i = text.indexOf("${env."); i >= 0; i = text.indexOf("${env.", i + 2)) {
    if (i > 0 && text[i - 1] === "$") continue;
    end = closingBrace(text, i, end);
    if (end < 0) break;
    const m = REFERENCE.exec(text.slice(i + 2, end));
    if (m) names.push(m[2]);
  }
  return names;
}

export class Resolver {
  /** Environment variables used by secret fields, for redaction. */
  readonly secretEnvNames = new Set<string>();
  /**
   * Where a field that is not secret reads the environment (`${env.NAME}`), in reading order:
   * checked once every file is read, so that none reads a credential (see credential-references.ts).
   */
  readonly plainEnvUses: { name: string; file: string; line: number; column: number; path: string }[] = [];
  /**
   * Files with a reference left unresolved because svc.yaml or the variable has an error (reported
   * there): their objects miss those values, so the kinds' checks skip them instead of reporting
   * errors that are not theirs.
   */
  readonly unresolvedIn = new Set<string>();

  private readonly lengths = new WeakMap<object, number>();

  constructor(private options: ResolverOptions) {}

  /** The characters a resolved value puts into a file: a string's, a list's or mapping's JSON text (measured once per value). */
  lengthOf(value: unknown): number {
    if (typeof value === "string") return value.length;
    if (value === null || typeof value !== "object") return String(value).length;
    let n = this.lengths.get(value);
    if (n === undefined) this.lengths.set(value, (n = JSON.stringify(value)?.length ?? 0));
    return n;
  }

  /** From now on, resolve `${var.NAME}` with these variables (after svc.yaml's own variables are read). */
  useVariables(variables: Record<string, unknown> | undefined, target: string): void {
    this.options = { ...this.options, variables, target, allowVariables: true };
  }

  /** Resolves the references in one string value. */
  resolve(text: string): Resolved {
    if (!text.includes("${")) return { ok: true, value: text };
    const whole = WHOLE.exec(text);
    if (whole) return this.lookup(whole[1] as "var" | "env", whole[2]);
    let out = "";
    for (let i = 0; i < text.length; ) {
      if (text.startsWith("$${", i)) {
        out += "${";
        i += 3;
        continue;
      }
      if (!text.startsWith("${", i)) {
        out += text[i++];
        continue;
      }
      const end = text.indexOf("}", i + 2);
      if (end < 0)
        return {
          ok: false,
          message: `unclosed reference in ${describeFound(text)}: expected \${var.NAME} or \${env.NAME} (write $\${ for a literal "\${")`,
        };
      const inner = text.slice(i + 2, end);
      const m = REFERENCE.exec(inner);
      // Quoted shortened: a 1 MiB value of `${${${…` would otherwise make a 1 MiB message.
      if (!m)
        return {
          ok: false,
          message: `unknown reference ${describeFound(`\${${inner}}`)}: expected \${var.NAME} or \${env.NAME} (write $\${ for a literal "\${")`,
        };
      const r = this.lookup(m[1] as "var" | "env", m[2]);
      if (!r.ok) return r;
      if (r.value !== null && typeof r.value === "object") {
        return {
          ok: false,
          message: `\${${inner}} holds ${Array.isArray(r.value) ? "a list" : "a mapping"}; it can only be used as a whole value, not inside a string`,
        };
      }
      out += String(r.value ?? "");
      i = end + 1;
    }
    return { ok: true, value: out };
  }

  /**
   * Resolves a secret field: `raw` must be exactly `${env.NAME}`. `label` names the field in messages.
   * The literal found is never repeated (it may be a secret committed by mistake).
   */
  resolveSecret(raw: unknown, label: string): ResolvedSecret {
    const m = typeof raw === "string" ? SECRET_REFERENCE.exec(raw) : null;
    if (!m) {
      return {
        ok: false,
        message: `found a literal value, expected exactly one \${env.NAME} reference: secret values come only from the environment (the value found is not shown)`,
      };
    }
    const name = m[1];
    this.secretEnvNames.add(name);
    const value = this.options.env[name];
    if (value === undefined)
      return { ok: false, message: `environment variable ${name} is not set; it holds the value of ${label}` };
    return { ok: true, value, envName: name };
  }

  private lookup(scope: "var" | "env", name: string): Resolved {
    if (scope === "env") {
      const value = this.options.env[name];
      return value === undefined
        ? { ok: false, message: `environment variable ${name} is not set (referenced as \${env.${name}})` }
        : { ok: true, value };
    }
    if (this.options.allowVariables === false) {
      return {
        ok: false,
        message: `variables cannot refer to other variables (found \${var.${name}}); use a literal or \${env.NAME}`,
      };
    }
    const vars = this.options.variables;
    // svc.yaml is missing or broken: that error is reported; do not pile up one per reference.
    if (vars === undefined) return { ok: false };
    if (vars[name] === UNRESOLVED) return { ok: false };
    if (Object.hasOwn(vars, name)) return { ok: true, value: vars[name] };
    const known = Object.keys(vars).sort();
    const defined = known.length
      ? `defined for ${this.options.target}: ${known.join(", ")}`
      : `no variables are defined for ${this.options.target}`;
    return {
      ok: false,
      message: `unknown variable "${name}" in \${var.${name}}; ${defined}${didYouMean(name, known)}`,
    };
  }
}
