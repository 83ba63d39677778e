/**
 * A small synchronous multipart/form-data parser for routes that take their body raw (`body: "raw"`,
 * up to 512 MiB) because their uploads may exceed the multipart routes' limit.
 */
import { HttpError, badRequest } from "./http-error";

export interface FormPart {
  name: string;
  /** Present for file parts. */
  filename?: string;
  contentType: string;
  data: Buffer;
}

/** Splits a multipart body into parts; 422 when the request is not multipart, 400 when it is malformed. */
export function parseMultipartSync(body: Buffer, contentTypeHeader: string | string[] | undefined): FormPart[] {
  const ct = Array.isArray(contentTypeHeader) ? contentTypeHeader[0] : contentTypeHeader;
  if (!ct?.toLowerCase().startsWith("multipart/form-data")) {
    throw new HttpError(422, [{ loc: ["body"], msg: "Expected multipart/form-data", type: "value_error" }]);
  }
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(ct);
  if (!m) throw badRequest("Malformed multipart body: the content type names no boundary");
  const delimiter = Buffer.from(`--${m[1] ?? m[2]}`);
  const parts: FormPart[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw badRequest("Malformed multipart body: no boundary found");
  for (;;) {
    pos += delimiter.length;
    if (body.subarray(pos, pos + 2).toString() === "--") return parts;
    if (body.subarray(pos, pos + 2).toString() !== "\r\n")
      throw badRequest("Malformed multipart body: bad boundary line");
    pos += 2;
    const headerEnd = body.indexOf("\r\n\r\n", pos);
    if (headerEnd < 0) throw badRequest("Malformed multipart body: part headers do not end");
    const headers = body.subarray(pos, headerEnd).toString("utf8").split("\r\n");
    const next = body.indexOf(Buffer.concat([Buffer.from("\r\n"), delimiter]), headerEnd + 4);
    if (next < 0) throw badRequest("Malformed multipart body: the closing boundary is missing");
    let name: string | undefined;
    let filename: string | undefined;
    let contentType = "";
    for (const h of headers) {
      const [k, ...rest] = h.split(":");
      const v = rest.join(":").trim();
      if (k.trim().toLowerCase() === "content-disposition") {
        name = /\bname="([^"]*)"/i.exec(v)?.[1];
        filename = /\bfilename="([^"]*)"/i.exec(v)?.[1];
      } else if (k.trim().toLowerCase() === "content-type") contentType = v;
    }
    if (name === undefined) throw badRequest("Malformed multipart body: a part has no name");
    parts.push({ name, filename, contentType, data: body.subarray(headerEnd + 4, next) });
    pos = next + 2;
  }
}

/** Text fields by name (first value wins) and file parts by name. */
export function splitForm(parts: FormPart[]): { fields: Record<string, string>; files: Map<string, FormPart> } {
  const fields: Record<string, string> = {};
  const files = new Map<string, FormPart>();
  for (const p of parts) {
    if (p.filename !== undefined) {
      if (!files.has(p.name)) files.set(p.name, p);
    } else if (!(p.name in fields)) fields[p.name] = p.data.toString("utf8");
  }
  return { fields, files };
}
