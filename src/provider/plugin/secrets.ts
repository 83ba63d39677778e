/**
 * Secrets on the wire: when the engine accepts secrets (the plugin's `Configure` says so), a secret
 * value travels as an object holding Pulumi's secret signature and the `value`. Calls reveal them
 * before a kind sees its inputs, and results conceal every field that holds one again, so that the
 * engine keeps them encrypted in state and shows them as `[secret]`.
 */

/** The key and value that mark an object as one of Pulumi's special values. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
/** The signature of a secret. */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export type Props = Record<string, unknown>;

/** True when `v` is a secret as the engine sends it. */
export function isSecret(v: unknown): v is { value: unknown } {
  return !!v && typeof v === "object" && (v as Props)[SIG_KEY] === SECRET_SIG;
}

function revealValue(v: unknown): { value: unknown; secret: boolean } {
  if (isSecret(v)) return { value: revealValue(v.value).value, secret: true };
  if (Array.isArray(v)) {
    const items = v.map(revealValue);
    return { value: items.map((i) => i.value), secret: items.some((i) => i.secret) };
  }
  if (v && typeof v === "object") {
    const entries = Object.entries(v).map(([k, x]) => [k, revealValue(x)] as const);
    return {
      value: Object.fromEntries(entries.map(([k, r]) => [k, r.value])),
      secret: entries.some(([, r]) => r.secret),
    };
  }
  return { value: v, secret: false };
}

/** The plain values of `props`, and the top-level fields that held a secret anywhere inside. */
export function reveal(props: Props | undefined): { values: Props; secretFields: Set<string> } {
  const values: Props = {};
  const secretFields = new Set<string>();
  for (const [k, v] of Object.entries(props ?? {})) {
    const r = revealValue(v);
    values[k] = r.value;
    if (r.secret) secretFields.add(k);
  }
  return { values, secretFields };
}

/** `props` with each of `fields` that holds a value wrapped as a secret. */
export function conceal(props: Props, fields: Iterable<string>): Props {
  const out: Props = { ...props };
  for (const f of fields) {
    const v = out[f];
    if (v !== undefined && v !== null && !isSecret(v)) out[f] = { [SIG_KEY]: SECRET_SIG, value: v };
  }
  return out;
}
