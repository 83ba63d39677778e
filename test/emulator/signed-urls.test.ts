import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { HttpError } from "../../src/emulator/http-error";
import { Keys } from "../../src/emulator/keys";
import { parseMultipartSync, splitForm } from "../../src/emulator/multipart";
import { parseStoragePath } from "../../src/emulator/object-store";
import { signGetUrl, signPostPolicy, verifyGetUrl, verifyPostPolicy } from "../../src/emulator/signed-urls";

const keys = new Keys(Buffer.alloc(32, 7));
const otherKeys = new Keys(Buffer.alloc(32, 8));
const t0 = new Date("2026-01-05T06:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

function thrown(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (e) {
    if (e instanceof HttpError) return e;
    throw e;
  }
  throw new Error("expected an HttpError");
}

describe("presigned GET URLs", () => {
  const url = new URL(signGetUrl("http://127.0.0.1:9", keys, "s3://b1/a/b.txt", t0));

  it("carries the path, an expiry one hour ahead in epoch seconds, and a signature", () => {
    expect(url.pathname).toBe("/_emulator/objects");
    expect(url.searchParams.get("path")).toBe("s3://b1/a/b.txt");
    expect(Number(url.searchParams.get("expires"))).toBe(t0.getTime() / 1000 + 3600);
    expect(verifyGetUrl(keys, url.searchParams, at(3_600_000))).toBe("s3://b1/a/b.txt");
  });

  it("is refused one millisecond after the hour, with the expiry in the detail", () => {
    expect(thrown(() => verifyGetUrl(keys, url.searchParams, at(3_600_001)))).toMatchObject({
      status: 403,
      detail: "The signed URL expired at 2026-01-05T07:00:00.000Z",
    });
  });

  it("is refused when signed by another key or when any part changed", () => {
    const detail = "The URL's signature does not match: the URL was altered or not issued by this emulator";
    expect(thrown(() => verifyGetUrl(otherKeys, url.searchParams, t0))).toMatchObject({ status: 403, detail });
    const q = new URLSearchParams(url.searchParams);
    q.set("expires", "9999999999");
    expect(thrown(() => verifyGetUrl(keys, q, t0))).toMatchObject({ status: 403, detail });
    q.set("expires", "1e3");
    expect(thrown(() => verifyGetUrl(keys, q, t0))).toMatchObject({ status: 403, detail });
  });
});

describe("POST policies", () => {
  const target = parseStoragePath("s3://b1/up/x.bin");
  const post = signPostPolicy("http://127.0.0.1:9", keys, target, { contentLength: 5 }, t0);

  it("accepts the exact size and falls back to the file part's content type when none is pinned", () => {
    expect(post.fields).not.toHaveProperty("Content-Type");
    expect(verifyPostPolicy(keys, target, post.fields, { size: 5, contentType: "image/png" }, at(3_600_000))).toEqual({
      key: "up/x.bin",
      contentType: "image/png",
    });
  });

  it("refuses another bucket, another size, another key and an expired policy", () => {
    expect(
      thrown(() =>
        verifyPostPolicy(keys, { scheme: "s3", bucket: "b2" }, post.fields, { size: 5, contentType: "" }, t0),
      ),
    ).toMatchObject({
      status: 403,
      detail: 'Invalid according to policy: the bucket must be "b1" but is "b2"',
    });
    expect(thrown(() => verifyPostPolicy(keys, target, post.fields, { size: 0, contentType: "" }, t0))).toMatchObject({
      status: 400,
      detail: "The file is 0 bytes; the signed policy allows exactly 5 bytes",
    });
    expect(
      thrown(() =>
        verifyPostPolicy(keys, target, { ...post.fields, key: undefined as never }, { size: 5, contentType: "" }, t0),
      ),
    ).toMatchObject({
      status: 403,
      detail: 'Invalid according to policy: the key must be "up/x.bin" but is missing',
    });
    expect(
      thrown(() => verifyPostPolicy(keys, target, post.fields, { size: 5, contentType: "" }, at(3_600_001))),
    ).toMatchObject({ status: 403, detail: "The upload policy expired at 2026-01-05T07:00:00.000Z" });
    expect(
      thrown(() => verifyPostPolicy(keys, target, { key: "up/x.bin" }, { size: 5, contentType: "" }, t0)),
    ).toMatchObject({ status: 403, detail: "The upload form lacks the policy or signature field" });
  });
});

describe("storage paths", () => {
  it("splits scheme, bucket and key, keeping a folder's trailing slash", () => {
    expect(parseStoragePath("gs://b-1/a/b/")).toEqual({ scheme: "gs", bucket: "b-1", key: "a/b/" });
    expect(parseStoragePath("s3://b1")).toEqual({ scheme: "s3", bucket: "b1", key: "" });
  });

  it("refuses other schemes, traversal, absolute keys and empty segments with 422 at query.path", () => {
    for (const [path, msg] of [
      ["file:///etc/passwd", 'The path must start with s3:// or gs:// (got "file:///etc/passwd")'],
      ["s3://b1/a/./b", 'The object key must not contain "." segments'],
      ["s3://b1/..", 'The object key must not contain ".." segments'],
      ["s3://b1//x", "The object key must not be absolute (no slash right after the bucket name)"],
      ["s3://b1/a//x", "The object key must not contain empty segments (//)"],
      ["s3:///x", '"" is not a valid bucket name'],
    ])
      expect(
        thrown(() => parseStoragePath(path)),
        path,
      ).toMatchObject({ status: 422, detail: [{ loc: ["query", "path"], msg, type: "value_error" }] });
  });
});

describe("the synchronous multipart parser", () => {
  it("reads what the platform's FormData encoding produces, binary files included", async () => {
    const bin = randomBytes(70_000);
    const form = new FormData();
    form.append("key", "a/b.bin");
    form.append("policy", "p==");
    form.append("file", new Blob([bin], { type: "application/x-thing" }), "b.bin");
    const req = new Request("http://x.invalid/", { method: "POST", body: form });
    const { fields, files } = splitForm(
      parseMultipartSync(Buffer.from(await req.arrayBuffer()), req.headers.get("content-type")!),
    );
    expect(fields).toEqual({ key: "a/b.bin", policy: "p==" });
    expect(files.get("file")).toMatchObject({ filename: "b.bin", contentType: "application/x-thing" });
    expect(files.get("file")!.data.equals(bin)).toBe(true);
  });

  it("refuses a body that is not multipart (422) or has no closing boundary (400)", () => {
    expect(thrown(() => parseMultipartSync(Buffer.from("{}"), "application/json"))).toMatchObject({ status: 422 });
    const body = Buffer.from('--xx\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue');
    expect(thrown(() => parseMultipartSync(body, "multipart/form-data; boundary=xx"))).toMatchObject({
      status: 400,
      detail: "Malformed multipart body: the closing boundary is missing",
    });
  });
});
