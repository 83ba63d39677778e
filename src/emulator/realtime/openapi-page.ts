/**
 * The browsable page of a shared canvas (`{udf_base_url}/<canvas_token>.api`), rendered from its
 * OpenAPI document: each operation with its parameters, and for plain runs a form that runs the
 * UDF in the browser (GET with the parameters in the query). Every value is HTML-escaped.
 */
const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

interface Param {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: { type?: string; default?: unknown; enum?: string[] };
  content?: Record<string, { schema?: { type?: string; default?: unknown } }>;
}

function paramSchema(p: Param) {
  return p.schema ?? Object.values(p.content ?? {})[0]?.schema ?? {};
}

function input(p: Param): string {
  const s = paramSchema(p);
  const value = s.default === undefined ? "" : typeof s.default === "string" ? s.default : JSON.stringify(s.default);
  const type = s.type === "integer" || s.type === "number" ? "number" : "text";
  const step = s.type === "number" ? ' step="any"' : "";
  return `<label>${escapeHtml(p.name)} <small>(${escapeHtml(s.type ?? "string")}${p.required ? ", required" : ""})</small>
  <input name="${escapeHtml(p.name)}" type="${type}"${step} value="${escapeHtml(value)}"${p.required ? " required" : ""}></label>`;
}

function operation(
  server: string,
  path: string,
  op: { summary?: string; description?: string; parameters?: Param[] },
  session: string | null,
): string {
  const params = op.parameters ?? [];
  const head = `<h2><code>GET ${escapeHtml(path)}</code></h2>
<p>${escapeHtml(op.summary ?? "")}${op.description ? `: ${escapeHtml(op.description)}` : ""}</p>`;
  if (path.includes("{")) {
    const list = params
      .map(
        (p) =>
          `<li><code>${escapeHtml(p.name)}</code> (${escapeHtml(p.in)}, ${escapeHtml(paramSchema(p).type ?? "string")})</li>`,
      )
      .join("\n");
    return `${head}\n<p>URL template: <code>${escapeHtml(server + path)}</code></p>\n<ul>\n${list}\n</ul>`;
  }
  const fields = params.filter((p) => p.in === "query" && p.name !== "format").map(input);
  const hidden = session ? `<input type="hidden" name="svc_session_token" value="${escapeHtml(session)}">` : "";
  return `${head}
<form method="get" action="${escapeHtml(server + path)}">
${fields.join("\n")}
<label>format <select name="format"><option>json</option><option>csv</option></select></label>
${hidden}<button type="submit">Run</button>
</form>`;
}

/** The page. `session` is the caller's `svc_session_token`, carried into the links and forms. */
export function canvasApiPage(doc: Record<string, any>, documentHref: string, session: string | null): string {
  const title = String(doc.info?.title ?? "");
  const server = String(doc.servers?.[0]?.url ?? "");
  const ops = Object.entries(doc.paths as Record<string, { get: any }>)
    .map(([path, item]) => operation(server, path, item.get, session))
    .join("\n");
  const passcode = doc.components?.securitySchemes?.passcode
    ? "<p>This canvas has a passcode: runs need the header <code>Authorization: Svc-Canvas-Passcode &lt;passcode&gt;</code>, which a form cannot send.</p>"
    : "";
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(title)} – API</title></head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(String(doc.info?.description ?? ""))} OpenAPI document: <a href="${escapeHtml(documentHref)}">${escapeHtml(title)}.api.json</a></p>
${passcode}
${ops}
</body></html>
`;
}
