import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors";
import { ManualClock } from "../../src/emulator/clock";
import { failure, useEmulator } from "../helpers/emulator";

const clock = new ManualClock("2026-01-05T06:00:00Z");
const fx = useEmulator({ clock });
const text = (s: string) => Buffer.from(s, "utf8");
const pathIssue = (msg: string) => [{ loc: ["query", "path"], msg, type: "value_error" }];

function setPublic(bucket: string, on: boolean) {
  fx.emu.env.store.run("UPDATE buckets SET public_read = ? WHERE url = ?", on ? 1 : 0, bucket);
}

describe("files (4.5): uploads and reads", () => {
  it("GIVEN an upload WHEN downloading through the 307 location THEN the same bytes and content type come back", async () => {
    const url = await fx.user.files.upload("s3://demo-bucket/rt/hello.txt", text("hello"), {
      contentType: "text/plain",
    });
    expect(url).toBe("s3://demo-bucket/rt/hello.txt");
    const location = await fx.user.files.getLocation("s3://demo-bucket/rt/hello.txt");
    expect(location.startsWith(`${fx.emu.origin}/_emulator/objects?`)).toBe(true);
    const res = await fetch(location);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain");
    expect(await res.text()).toBe("hello");
    expect((await fx.user.files.download("s3://demo-bucket/rt/hello.txt")).toString()).toBe("hello");
  });

  it("replaces an object on a second upload to the same path", async () => {
    await fx.user.files.upload("s3://demo-bucket/rt/twice.txt", text("one"));
    await fx.user.files.upload("s3://demo-bucket/rt/twice.txt", text("two"));
    expect((await fx.user.files.download("s3://demo-bucket/rt/twice.txt")).toString()).toBe("two");
  });

  it("round-trips an upload of several megabytes byte for byte", async () => {
    const big = randomBytes(6 * 1024 * 1024 + 7);
    await fx.service.files.upload("s3://demo-bucket/big/blob.bin", big);
    const back = await fx.user.files.download("s3://demo-bucket/big/blob.bin");
    expect(back.length).toBe(big.length);
    expect(back.equals(big)).toBe(true);
    expect(await fx.user.files.listDetails("s3://demo-bucket/big/blob.bin")).toMatchObject([
      { size: big.length, is_directory: false },
    ]);
  });

  it("GIVEN a service token THEN the environment endpoints work for its team", async () => {
    expect(await fx.service.files.upload("s3://demo-bucket/svc/a.txt", text("svc"))).toBe("s3://demo-bucket/svc/a.txt");
    expect(await fx.service.files.list("s3://demo-bucket/svc")).toEqual(["s3://demo-bucket/svc/a.txt"]);
    const temp = await fx.service.files.uploadTemp(text("t"), { extension: "txt" });
    expect(temp).toMatch(/^s3:\/\/demo-bucket\/tmp\/[0-9a-f-]{36}\.txt$/);
    expect(await fx.service.files.delete("s3://demo-bucket/svc/a.txt")).toBe(true);
    expect(await fx.service.files.list("s3://demo-bucket/svc")).toEqual([]);
    expect((await fx.service.files.signUpload("s3://demo-bucket/svc/b.txt", 3)).fields.key).toBe("svc/b.txt");
  });

  it("uploads a temporary file to a server-chosen path in the team's first bucket", async () => {
    const path = await fx.user.files.uploadTemp(text("a,b\n1,2\n"), { extension: ".csv", contentType: "text/csv" });
    expect(path).toMatch(/^s3:\/\/demo-bucket\/tmp\/[0-9a-f-]{36}\.csv$/);
    expect((await fx.user.files.download(path)).toString()).toBe("a,b\n1,2\n");
    const bad = await failure(fx.user.files.uploadTemp(text("x"), { extension: "../x" }));
    expect(bad).toMatchObject({
      status: 422,
      detail: [
        {
          loc: ["query", "extension"],
          msg: "The extension must be 1 to 16 letters or digits, such as parquet or csv",
          type: "value_error",
        },
      ],
    });
  });

  it("refuses to write an object where the emulator's store holds a folder (409)", async () => {
    await fx.user.files.upload("s3://demo-bucket/clash/inner/x.txt", text("x"));
    const e = await failure(fx.user.files.upload("s3://demo-bucket/clash/inner", text("y")));
    expect(e).toMatchObject({ status: 409, code: "conflict" });
    expect(e.detail).toBe(
      "Cannot write s3://demo-bucket/clash/inner: the emulator's store already holds objects under s3://demo-bucket/clash/inner/, and a folder cannot also be an object",
    );
    expect(await fx.user.files.list("s3://demo-bucket/clash")).toEqual(["s3://demo-bucket/clash/inner/x.txt"]);
  });
});

describe("files (4.5): gs:// multipart uploads", () => {
  it("GIVEN the other team's instance WHEN uploading a multipart file to its gs:// bucket THEN it can be read back", async () => {
    const url = await fx.other.files.uploadGcs(
      "gs://other-bucket/up/data.json",
      "rt-other-primary",
      text('{"a":1}'),
      "data.json",
      { contentType: "application/json" },
    );
    expect(url).toBe("gs://other-bucket/up/data.json");
    expect((await fx.other.files.download(url)).toString()).toBe('{"a":1}');
    const folder = await fx.other.files.uploadGcs(
      "gs://other-bucket/up/",
      "rt-other-primary",
      randomBytes(3 * 1024 * 1024),
      "big.bin",
    );
    expect(folder).toBe("gs://other-bucket/up/big.bin");
    expect((await fx.other.files.listDetails("gs://other-bucket/up/big.bin"))[0].size).toBe(3 * 1024 * 1024);
    expect(await fx.other.files.uploadGcs("gs://other-bucket", "rt-other-primary", text("r"), "root.txt")).toBe(
      "gs://other-bucket/root.txt",
    );
    expect(await fx.other.files.list("gs://other-bucket/root.txt")).toEqual(["gs://other-bucket/root.txt"]);
  });

  it("refuses an s3:// path (422), an instance of another team (404), a missing file field (422) and another team's bucket (404)", async () => {
    const s3 = await failure(fx.user.files.uploadGcs("s3://demo-bucket/x.bin", "rt-demo-primary", text("x"), "x.bin"));
    expect(s3).toMatchObject({
      status: 422,
      detail: pathIssue("upload-gcs writes gs:// paths only; use /files/upload for s3://"),
    });
    const inst = await failure(
      fx.other.files.uploadGcs("gs://other-bucket/x.bin", "rt-demo-primary", text("x"), "x.bin"),
    );
    expect(inst).toMatchObject({
      status: 404,
      detail: 'Real-time instance "rt-demo-primary" not found in this execution environment',
    });
    const form = new FormData();
    form.append("wrong", new Blob([text("x")]), "x.bin");
    const missing = await failure(
      fx.other.transport.send("PUT /files/upload-gcs", {
        query: { path: "gs://other-bucket/x.bin", client_id: "rt-other-primary" },
        body: { form },
      }),
    );
    expect(missing).toMatchObject({
      status: 422,
      detail: [{ loc: ["body", "file_name"], msg: "Field required", type: "missing" }],
    });
    const foreign = await failure(
      fx.user.files.uploadGcs("gs://other-bucket/x.bin", "rt-demo-primary", text("x"), "x.bin"),
    );
    expect(foreign).toMatchObject({ status: 404, detail: "Bucket gs://other-bucket not found" });
    expect(await fx.other.files.list("gs://other-bucket/x.bin")).toEqual([]);
  });
});

describe("files (4.5): listings", () => {
  it("lists every object under a folder as full URLs, recursively and sorted", async () => {
    for (const k of ["ls/b.txt", "ls/a.txt", "ls/sub/c.txt", "ls/sub/deep/d.txt", "lsx/other.txt"])
      await fx.user.files.upload(`s3://demo-bucket/${k}`, text(k));
    const all = [
      "s3://demo-bucket/ls/a.txt",
      "s3://demo-bucket/ls/b.txt",
      "s3://demo-bucket/ls/sub/c.txt",
      "s3://demo-bucket/ls/sub/deep/d.txt",
    ];
    expect(await fx.user.files.list("s3://demo-bucket/ls")).toEqual(all);
    expect(await fx.user.files.list("s3://demo-bucket/ls/")).toEqual(all);
    expect(await fx.user.files.list("s3://demo-bucket/ls/a.txt")).toEqual(["s3://demo-bucket/ls/a.txt"]);
    expect(await fx.user.files.list("s3://demo-bucket/nothing-here/")).toEqual([]);
    expect(await fx.user.files.list("s3://demo-bucket/ls", { clientId: "rt-demo-secondary" })).toEqual(all);
  });

  it("lists one level in detail, with sub-folders as directory entries", async () => {
    await fx.user.files.upload("s3://demo-bucket/det/x.csv", text("12345"));
    clock.advance(60_000);
    await fx.user.files.upload("s3://demo-bucket/det/sub/y.csv", text("1"));
    const subTime = clock.now().toISOString();
    const entries = await fx.user.files.listDetails("s3://demo-bucket/det/");
    expect(entries).toEqual([
      { url: "s3://demo-bucket/det/sub/", file_name: "sub", is_directory: true, size: 0, last_modified: subTime },
      {
        url: "s3://demo-bucket/det/x.csv",
        file_name: "x.csv",
        is_directory: false,
        size: 5,
        last_modified: new Date(clock.now().getTime() - 60_000).toISOString(),
      },
    ]);
    expect(await fx.user.files.listDetails("s3://demo-bucket/det/sub")).toEqual([
      {
        url: "s3://demo-bucket/det/sub/y.csv",
        file_name: "y.csv",
        is_directory: false,
        size: 1,
        last_modified: subTime,
      },
    ]);
  });

  it("refuses a client_id of another team (404) and unknown buckets (404)", async () => {
    const inst = await failure(fx.user.files.list("s3://demo-bucket/ls", { clientId: "rt-other-primary" }));
    expect(inst).toMatchObject({
      status: 404,
      detail: 'Real-time instance "rt-other-primary" not found in this execution environment',
    });
    const unknown = await failure(fx.user.files.list("s3://no-such-bucket/"));
    expect(unknown).toMatchObject({ status: 404, detail: "Bucket s3://no-such-bucket not found" });
  });
});

describe("files (4.5): path validation", () => {
  it("refuses a path without s3:// or gs://, with .. segments, an absolute key, or no path at all (422 at query.path)", async () => {
    expect(await failure(fx.user.files.list("/etc/passwd"))).toMatchObject({
      status: 422,
      code: "validation_failed",
      detail: pathIssue('The path must start with s3:// or gs:// (got "/etc/passwd")'),
    });
    expect(await failure(fx.user.files.upload("s3://demo-bucket/a/../../escape.txt", text("x")))).toMatchObject({
      status: 422,
      detail: pathIssue('The object key must not contain ".." segments'),
    });
    expect(await failure(fx.user.files.getLocation("s3://demo-bucket//etc/passwd"))).toMatchObject({
      status: 422,
      detail: pathIssue("The object key must not be absolute (no slash right after the bucket name)"),
    });
    expect(await failure(fx.user.files.upload("s3://demo-bucket/a//b", text("x")))).toMatchObject({
      status: 422,
      detail: pathIssue("The object key must not contain empty segments (//)"),
    });
    expect(await failure(fx.user.transport.send("GET /files/list", {}))).toMatchObject({
      status: 422,
      detail: [{ loc: ["query", "path"], msg: "Field required", type: "missing" }],
    });
    expect(await failure(fx.user.files.upload("s3://demo-bucket/folder/", text("x")))).toMatchObject({
      status: 422,
      detail: pathIssue("The path must name an object, not a folder (it ends with / or names only the bucket)"),
    });
  });
});

describe("files (4.5): presigned reads", () => {
  it("GIVEN a 307 location THEN it works within the hour and fails with 403 once the hour has passed", async () => {
    await fx.user.files.upload("s3://demo-bucket/exp/a.txt", text("soon gone"));
    const location = await fx.user.files.getLocation("s3://demo-bucket/exp/a.txt");
    const issued = clock.now().getTime();
    clock.advance(3_599_000);
    expect((await fx.user.files.fetchSigned(location)).toString()).toBe("soon gone");
    clock.set(issued + 3_600_001);
    const e = await failure(fx.user.files.fetchSigned(location));
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({
      status: 403,
      code: "forbidden",
      path: "/_emulator/objects",
      detail: `The signed URL expired at ${new Date(issued + 3_600_000).toISOString()}`,
    });
    expect(e.message).not.toContain(new URL(location).searchParams.get("sig"));
    // A fresh location works again.
    expect((await fx.user.files.download("s3://demo-bucket/exp/a.txt")).toString()).toBe("soon gone");
  });

  it("GIVEN a tampered location (other path, changed expiry or signature) THEN 403", async () => {
    // A signature that starts with "A" already would stay the same with its first character set to "A".
    const otherFirstChar = (sig: string) => (sig[0] === "A" ? "B" : "A") + sig.slice(1);
    await fx.user.files.upload("s3://demo-bucket/tamper/a.txt", text("a"));
    await fx.user.files.upload("s3://demo-bucket/tamper/b.txt", text("b"));
    const location = new URL(await fx.user.files.getLocation("s3://demo-bucket/tamper/a.txt"));
    const detail = "The URL's signature does not match: the URL was altered or not issued by this emulator";
    for (const [k, v] of [
      ["path", "s3://demo-bucket/tamper/b.txt"],
      ["expires", String(Number(location.searchParams.get("expires")) + 86400)],
      ["sig", otherFirstChar(location.searchParams.get("sig")!)],
    ]) {
      const u = new URL(location);
      u.searchParams.set(k, v);
      expect(await failure(fx.user.files.fetchSigned(u.toString()))).toMatchObject({ status: 403, detail });
    }
    const unsigned = `${fx.emu.origin}/_emulator/objects?path=${encodeURIComponent("s3://demo-bucket/tamper/a.txt")}`;
    expect(await failure(fx.user.files.fetchSigned(unsigned))).toMatchObject({
      status: 403,
      detail: "The URL is not signed: it needs path, expires and sig query parameters",
    });
  });

  it("answers 404 for a missing object, and for a signed URL whose object was deleted", async () => {
    expect(await failure(fx.user.files.getLocation("s3://demo-bucket/none.txt"))).toMatchObject({
      status: 404,
      detail: "No object at s3://demo-bucket/none.txt",
    });
    await fx.user.files.upload("s3://demo-bucket/gone.txt", text("x"));
    const signed = await fx.user.files.sign("s3://demo-bucket/gone.txt");
    expect((await fx.user.files.fetchSigned(signed)).toString()).toBe("x");
    await fx.user.files.delete("s3://demo-bucket/gone.txt");
    expect(await failure(fx.user.files.fetchSigned(signed))).toMatchObject({
      status: 404,
      detail: "No object at s3://demo-bucket/gone.txt",
    });
  });
});

describe("files (4.5): signed POST uploads", () => {
  it("GIVEN a policy for the exact length and type WHEN posting those bytes THEN the object is stored", async () => {
    const bytes = text("exactly 24 bytes here!!!");
    const policy = await fx.user.files.signUpload("s3://demo-bucket/post/a.txt", bytes.length, {
      contentType: "text/plain",
    });
    expect(policy.url).toBe(`${fx.emu.origin}/_emulator/upload/s3/demo-bucket`);
    expect(Object.keys(policy.fields)).toEqual(["key", "Content-Type", "policy", "signature"]);
    const decoded = JSON.parse(Buffer.from(policy.fields.policy, "base64").toString());
    expect(decoded).toEqual({
      expiration: new Date(clock.now().getTime() + 3_600_000).toISOString(),
      conditions: [
        { bucket: "demo-bucket" },
        { key: "post/a.txt" },
        ["content-length-range", 24, 24],
        { "Content-Type": "text/plain" },
      ],
    });
    await fx.anon.files.postSignedUpload(policy, bytes);
    const res = await fetch(await fx.user.files.getLocation("s3://demo-bucket/post/a.txt"));
    expect(res.headers.get("content-type")).toBe("text/plain");
    expect(await res.text()).toBe("exactly 24 bytes here!!!");
  });

  it("refuses a wrong length (400), an altered policy (403), an altered pinned field (403) and an expired policy (403)", async () => {
    const policy = await fx.user.files.signUpload("s3://demo-bucket/post/b.bin", 10, {
      contentType: "application/octet-stream",
    });
    expect(await failure(fx.anon.files.postSignedUpload(policy, randomBytes(11)))).toMatchObject({
      status: 400,
      detail: "The file is 11 bytes; the signed policy allows exactly 10 bytes",
    });
    expect(await failure(fx.anon.files.postSignedUpload(policy, randomBytes(9)))).toMatchObject({
      status: 400,
      detail: "The file is 9 bytes; the signed policy allows exactly 10 bytes",
    });
    const longer = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(policy.fields.policy, "base64").toString()),
        conditions: [["content-length-range", 0, 99]],
      }),
    ).toString("base64");
    expect(
      await failure(
        fx.anon.files.postSignedUpload({ ...policy, fields: { ...policy.fields, policy: longer } }, randomBytes(11)),
      ),
    ).toMatchObject({
      status: 403,
      detail: "The policy signature does not match: the policy was altered or not issued by this emulator",
    });
    expect(
      await failure(
        fx.anon.files.postSignedUpload(
          { ...policy, fields: { ...policy.fields, key: "post/elsewhere.bin" } },
          randomBytes(10),
        ),
      ),
    ).toMatchObject({
      status: 403,
      detail: 'Invalid according to policy: the key must be "post/b.bin" but is "post/elsewhere.bin"',
    });
    expect(
      await failure(
        fx.anon.files.postSignedUpload(
          { ...policy, fields: { ...policy.fields, "Content-Type": "text/html" } },
          randomBytes(10),
        ),
      ),
    ).toMatchObject({
      status: 403,
      detail: 'Invalid according to policy: the Content-Type must be "application/octet-stream" but is "text/html"',
    });
    expect(
      await failure(
        fx.anon.files.postSignedUpload(
          { ...policy, fields: { ...policy.fields, acl: "public-read" } },
          randomBytes(10),
        ),
      ),
    ).toMatchObject({
      status: 403,
      detail: 'Invalid according to policy: the field "acl" is not allowed by the policy',
    });
    clock.advance(3_600_001);
    expect(await failure(fx.anon.files.postSignedUpload(policy, randomBytes(10)))).toMatchObject({
      status: 403,
      detail: expect.stringMatching(/^The upload policy expired at \d{4}-/),
    });
    expect(await fx.user.files.list("s3://demo-bucket/post/")).toEqual(["s3://demo-bucket/post/a.txt"]);
  });

  it("signs a temporary upload to a server-chosen path, and requires content_length (422)", async () => {
    const { signed_post, storage_url } = await fx.user.files.signUploadTemp(4, { extension: "parquet" });
    expect(storage_url).toMatch(/^s3:\/\/demo-bucket\/tmp\/[0-9a-f-]{36}\.parquet$/);
    expect(`s3://demo-bucket/${signed_post.fields.key}`).toBe(storage_url);
    await fx.user.files.postSignedUpload(signed_post, text("PAR1"));
    expect((await fx.user.files.download(storage_url)).toString()).toBe("PAR1");
    const missing = await failure(
      fx.user.transport.send("GET /files/sign-upload", { query: { path: "s3://demo-bucket/x" } }),
    );
    expect(missing).toMatchObject({
      status: 422,
      detail: [{ loc: ["query", "content_length"], msg: "Field required", type: "missing" }],
    });
  });
});

describe("files (4.5): delete", () => {
  const tree = ["del/a.txt", "del/l2/b.txt", "del/l2/l3/c.txt", "del/l2/l3/l4/d.txt"];
  const seed = async () => {
    for (const k of tree) await fx.user.files.upload(`s3://demo-bucket/${k}`, text(k));
  };

  it("GIVEN the default depth of 3 WHEN deleting a folder THEN objects deeper than 3 levels stay", async () => {
    await seed();
    expect(await fx.user.files.delete("s3://demo-bucket/del")).toBe(true);
    expect(await fx.user.files.list("s3://demo-bucket/del/")).toEqual(["s3://demo-bucket/del/l2/l3/l4/d.txt"]);
    expect(await fx.user.files.listDetails("s3://demo-bucket/del/")).toMatchObject([
      { file_name: "l2", is_directory: true },
    ]);
  });

  it("GIVEN max_deletion_depth=unlimited THEN everything under the folder goes; a depth of 1 only takes the top level", async () => {
    await seed();
    expect(await fx.user.files.delete("s3://demo-bucket/del/", { maxDeletionDepth: 1 })).toBe(true);
    expect(await fx.user.files.list("s3://demo-bucket/del/")).toEqual(
      tree.slice(1).map((k) => `s3://demo-bucket/${k}`),
    );
    expect(await fx.user.files.delete("s3://demo-bucket/del/", { maxDeletionDepth: "unlimited" })).toBe(true);
    expect(await fx.user.files.list("s3://demo-bucket/del/")).toEqual([]);
    expect(await fx.user.files.listDetails("s3://demo-bucket/")).not.toContainEqual(
      expect.objectContaining({ file_name: "del" }),
    );
  });

  it("deletes a single object, succeeds when nothing is there, and refuses a depth below 1 (422)", async () => {
    await fx.user.files.upload("s3://demo-bucket/one/x.txt", text("x"));
    await fx.user.files.upload("s3://demo-bucket/one/y.txt", text("y"));
    expect(await fx.user.files.delete("s3://demo-bucket/one/x.txt")).toBe(true);
    expect(await fx.user.files.list("s3://demo-bucket/one/")).toEqual(["s3://demo-bucket/one/y.txt"]);
    expect(await fx.user.files.delete("s3://demo-bucket/one/x.txt")).toBe(true);
    const bad = await failure(fx.user.files.delete("s3://demo-bucket/one/", { maxDeletionDepth: 0 }));
    expect(bad).toMatchObject({
      status: 422,
      detail: [
        {
          loc: ["query", "max_deletion_depth"],
          msg: "Input should be a positive integer or 'unlimited'",
          type: "value_error",
        },
      ],
    });
    expect(await fx.user.files.list("s3://demo-bucket/one/")).toEqual(["s3://demo-bucket/one/y.txt"]);
  });
});

describe("files (4.5): access between teams and without credentials", () => {
  it("GIVEN another team's private bucket THEN every endpoint answers 404 and nothing changes", async () => {
    await fx.other.files.upload("gs://other-bucket/private/p.txt", text("secret"));
    const detail = "Bucket gs://other-bucket not found";
    for (const p of [
      () => fx.user.files.list("gs://other-bucket/"),
      () => fx.user.files.listDetails("gs://other-bucket/"),
      () => fx.user.files.getLocation("gs://other-bucket/private/p.txt"),
      () => fx.user.files.sign("gs://other-bucket/private/p.txt"),
      () => fx.user.files.resolve("gs://other-bucket/private/p.txt"),
      () => fx.user.files.upload("gs://other-bucket/private/p.txt", text("overwritten")),
      () => fx.user.files.delete("gs://other-bucket/private/p.txt"),
      () => fx.user.files.signUpload("gs://other-bucket/private/p.txt", 3),
    ])
      expect(await failure(p())).toMatchObject({ status: 404, code: "not_found", detail });
    expect((await fx.other.files.download("gs://other-bucket/private/p.txt")).toString()).toBe("secret");
  });

  it("GIVEN no credentials THEN a private bucket is 404 and environment endpoints are 401", async () => {
    const detail = "Bucket s3://demo-bucket not found, or not readable without credentials";
    expect(await failure(fx.anon.files.list("s3://demo-bucket/"))).toMatchObject({ status: 404, detail });
    expect(await failure(fx.anon.files.getLocation("s3://demo-bucket/rt/hello.txt"))).toMatchObject({
      status: 404,
      detail,
    });
    for (const p of [
      () => fx.anon.files.upload("s3://demo-bucket/anon.txt", text("x")),
      () => fx.anon.files.uploadTemp(text("x")),
      () => fx.anon.files.uploadGcs("gs://other-bucket/anon.txt", "rt-other-primary", text("x"), "anon.txt"),
      () => fx.anon.files.delete("s3://demo-bucket/rt/hello.txt"),
      () => fx.anon.files.signUpload("s3://demo-bucket/anon.txt", 1),
      () => fx.anon.files.signUploadTemp(1),
      () => fx.anon.files.s3IamPolicy("demo-bucket"),
    ])
      expect(await failure(p())).toMatchObject({ status: 401, code: "unauthorized", detail: "Not authenticated" });
    expect((await fx.user.files.download("s3://demo-bucket/rt/hello.txt")).toString()).toBe("hello");
  });

  it("GIVEN a public bucket THEN anyone may list, read and sign it, but only its team may write (403)", async () => {
    await fx.other.files.upload("gs://other-bucket/pub/open.txt", text("open"), { contentType: "text/plain" });
    setPublic("gs://other-bucket", true);
    try {
      expect(await fx.anon.files.list("gs://other-bucket/pub")).toEqual(["gs://other-bucket/pub/open.txt"]);
      expect((await fx.anon.files.download("gs://other-bucket/pub/open.txt")).toString()).toBe("open");
      expect(
        (await fx.anon.files.fetchSigned(await fx.anon.files.sign("gs://other-bucket/pub/open.txt"))).toString(),
      ).toBe("open");
      expect((await fx.user.files.download("gs://other-bucket/pub/open.txt")).toString()).toBe("open");
      expect(await fx.anon.files.resolve("gs://other-bucket/pub/open.txt")).toBe("gs://other-bucket/pub/open.txt");
      const write = await failure(fx.user.files.upload("gs://other-bucket/pub/open.txt", text("mine")));
      expect(write).toMatchObject({
        status: 403,
        detail: "Bucket gs://other-bucket is publicly readable but belongs to another team; it cannot be written to",
      });
      expect(await failure(fx.user.files.delete("gs://other-bucket/pub/"))).toMatchObject({ status: 403 });
      expect((await fx.anon.files.download("gs://other-bucket/pub/open.txt")).toString()).toBe("open");
    } finally {
      setPublic("gs://other-bucket", false);
    }
    expect(await failure(fx.anon.files.list("gs://other-bucket/pub"))).toMatchObject({ status: 404 });
  });
});

describe("files (4.5): resolve and the IAM policy", () => {
  it("resolves storage paths and the svc:// alias of the team's first bucket, checking access", async () => {
    expect(await fx.user.files.resolve("s3://demo-bucket/a/b.parquet")).toBe("s3://demo-bucket/a/b.parquet");
    expect(await fx.user.files.resolve("svc://data/x.parquet", { jobId: "job-123" })).toBe(
      "s3://demo-bucket/data/x.parquet",
    );
    expect(await fx.service.files.resolve("svc://data/")).toBe("s3://demo-bucket/data/");
    expect(await fx.other.files.resolve("svc://x")).toBe("gs://other-bucket/x");
    expect(await failure(fx.anon.files.resolve("svc://data/x"))).toMatchObject({
      status: 401,
      detail: "svc:// paths name the caller's own bucket; credentials are required to resolve them",
    });
    expect(await failure(fx.user.files.resolve("svc://../x"))).toMatchObject({
      status: 422,
      detail: pathIssue('The object key must not contain ".." segments'),
    });
    expect(await failure(fx.user.files.resolve("https://example.com/x"))).toMatchObject({
      status: 422,
      detail: pathIssue('The path must start with s3:// or gs:// (got "https://example.com/x")'),
    });
  });

  it("returns a deterministic bucket policy granting the team's job and real-time roles every action", async () => {
    const expected = {
      Version: "2012-10-17",
      Statement: [
        {
          Sid: "SvcExecutionEnvironmentAccess",
          Effect: "Allow",
          Principal: {
            AWS: [
              "arn:aws:iam::000000000000:role/svc-job-env-demo",
              "arn:aws:iam::000000000000:role/svc-realtime-env-demo",
            ],
          },
          Action: "s3:*",
          Resource: ["arn:aws:s3:::my-team-data", "arn:aws:s3:::my-team-data/*"],
        },
      ],
    };
    expect(await fx.user.files.s3IamPolicy("my-team-data")).toEqual(expected);
    expect(await fx.service.files.s3IamPolicy("s3://my-team-data")).toEqual(expected);
    expect((await fx.other.files.s3IamPolicy("my-team-data")).Statement[0].Principal.AWS).toEqual([
      "arn:aws:iam::000000000000:role/svc-job-env-other",
      "arn:aws:iam::000000000000:role/svc-realtime-env-other",
    ]);
    const bad = await failure(fx.user.files.s3IamPolicy("Not_A_Bucket"));
    expect(bad).toMatchObject({
      status: 422,
      detail: [
        {
          loc: ["query", "bucket_name"],
          msg: "Not a valid S3 bucket name: 3 to 63 lowercase letters, digits, dots or hyphens",
          type: "value_error",
        },
      ],
    });
  });
});
