/**
 * The inventory's journal: during apply, changed entries are appended to `inventory.journal`
 * (a write costs what changed, not the whole inventory); the final write folds it into
 * `inventory.json`; a run stopped at any point leaves a journal the next read folds in.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failure } from "../../helpers/emulator";
import { InventoryWriter, JOURNAL_BATCH_RECORDS } from "../../../src/reconcile/apply/inventory-writer";
import { StateFileError } from "../../../src/reconcile/state/lock-errors";
import { openStateBackend } from "../../../src/reconcile/state/open-backend";
import type { Inventory, InventoryEntry } from "../../../src/model/inventory";
import type { StateBackend } from "../../../src/reconcile/state/types";

const STATE = ".svc-iac/state/listings/default";
const NOW = () => new Date("2026-03-01T10:00:00.000Z");
const PROJECT = { project: "listings", target: "default" };

let root: string;
const open = () => openStateBackend({ kind: "local", path: STATE }, { root, ...PROJECT });
const file = (name: string) => join(root, STATE, name);

const entry = (id: string): InventoryEntry => ({
  kind: "Udf",
  id,
  key: `c-1/${id}`,
  createdAt: "2026-03-01T10:00:00.000Z",
  appliedAt: "2026-03-01T10:00:00.000Z",
});

/** An inventory of `n` UDFs, written whole. */
async function written(n: number): Promise<Inventory> {
  const objects = Object.fromEntries(Array.from({ length: n }, (_, i) => [`udf.sales/u${i}`, entry(`u-${i}`)]));
  const inventory: Inventory = { version: 1, ...PROJECT, updatedAt: "2026-03-01T10:00:00.000Z", objects };
  await open().writeInventory(inventory);
  return inventory;
}

/** A writer over a fresh read of the state, as apply makes one. */
async function writer(): Promise<{ backend: StateBackend; w: InventoryWriter }> {
  const backend = open();
  const w = new InventoryWriter(backend, await backend.readInventory(), PROJECT, NOW);
  return { backend, w };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "svc-journal-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("GIVEN an inventory of 1,000 entries", () => {
  it("WHEN apply changes two of them THEN only those two are written, to the journal, and the next read sees them", async () => {
    await written(1000);
    const before = readFileSync(file("inventory.json"), "utf8");
    const { w } = await writer();
    w.set("udf.sales/u1", { ...entry("u-1b"), key: "c-1/u1" });
    w.remove("udf.sales/u2");
    await w.flush();
    expect(readFileSync(file("inventory.json"), "utf8")).toBe(before);
    const lines = readFileSync(file("inventory.journal"), "utf8").trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { address: "udf.sales/u1", entry: { ...entry("u-1b"), key: "c-1/u1" } },
      { address: "udf.sales/u2", entry: null },
    ]);
    const read = await open().readInventory();
    expect(read!.objects["udf.sales/u1"]!.id).toBe("u-1b");
    expect(read!.objects["udf.sales/u2"]).toBeUndefined();
    expect(Object.keys(read!.objects).length).toBe(999);
  });

  it("WHEN apply ends THEN the inventory is written whole and the journal is gone", async () => {
    await written(1000);
    const { w } = await writer();
    w.set("udf.sales/u1", entry("u-1b"));
    await w.fold();
    expect(existsSync(file("inventory.journal"))).toBe(false);
    expect(JSON.parse(readFileSync(file("inventory.json"), "utf8")).objects["udf.sales/u1"].id).toBe("u-1b");
  });
});

describe("GIVEN an apply making changes one after another (as steps finish)", () => {
  /** A writer whose journal appends are counted. */
  async function countingWriter(): Promise<{ w: InventoryWriter; appends: () => number }> {
    const { backend, w } = await writer();
    let appends = 0;
    const append = backend.journal!.append.bind(backend.journal);
    backend.journal!.append = (records) => (appends++, append(records));
    return { w, appends: () => appends };
  }

  it("WHEN 2,000 entries change in quick succession THEN they are appended in batches (at most one write per 10 changes), and each change is in the journal once whenWritten says so", async () => {
    await written(1);
    const { w, appends } = await countingWriter();
    const checks: Promise<void>[] = [];
    for (let i = 0; i < 2000; i++) {
      w.set(`udf.sales/n${i}`, entry(`n-${i}`));
      // A step is reported done when this resolves: its record must be in the journal file by then.
      if (i % 250 === 0)
        checks.push(
          w.whenWritten().then((ok) => {
            expect(ok).toBe(true);
            expect(readFileSync(file("inventory.journal"), "utf8")).toContain(`"udf.sales/n${i}"`);
          }),
        );
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(checks);
    expect(appends()).toBeGreaterThan(0);
    expect(appends()).toBeLessThanOrEqual(2000 / 10);
    expect(appends()).toBeGreaterThanOrEqual(2000 / JOURNAL_BATCH_RECORDS);
    const lines = readFileSync(file("inventory.journal"), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(2000);
  });

  it("WHEN one change is made and nothing flushes THEN it is still appended on its own (within the batch time), and whenWritten resolves", async () => {
    await written(1);
    const { w, appends } = await countingWriter();
    w.set("udf.sales/lone", entry("lone"));
    expect(existsSync(file("inventory.journal"))).toBe(false);
    await expect(w.whenWritten()).resolves.toBe(true);
    expect(appends()).toBe(1);
    expect(readFileSync(file("inventory.journal"), "utf8")).toContain('"udf.sales/lone"');
  });

  it("WHEN an append fails THEN whenWritten resolves false (nothing is reported done) and flush throws", async () => {
    await written(1);
    const { backend, w } = await writer();
    backend.journal!.append = async () => {
      throw new Error("disk full");
    };
    w.set("udf.sales/lost", entry("lost"));
    await expect(w.whenWritten()).resolves.toBe(false);
    await expect(w.flush()).rejects.toThrow("disk full");
  });
});

describe("GIVEN a run killed after some steps were journaled", () => {
  it("WHEN the next apply reads the state THEN it sees them, writes the inventory whole first, and later steps are appended again", async () => {
    await written(3);
    const first = await writer();
    first.w.set("udf.sales/u9", entry("u-9"));
    await first.w.flush();
    // Killed here: no fold. The next run:
    const { backend, w } = await writer();
    expect(backend.journal!.foldDue).toBe(true);
    expect(w.get("udf.sales/u9")?.id).toBe("u-9");
    w.set("udf.sales/u10", entry("u-10"));
    await w.flush();
    expect(existsSync(file("inventory.journal"))).toBe(false);
    expect(Object.keys(JSON.parse(readFileSync(file("inventory.json"), "utf8")).objects)).toContain("udf.sales/u9");
    w.set("udf.sales/u11", entry("u-11"));
    await w.flush();
    expect(readFileSync(file("inventory.journal"), "utf8")).toContain('"udf.sales/u11"');
    expect(Object.keys((await open().readInventory())!.objects).sort()).toEqual([
      "udf.sales/u0",
      "udf.sales/u1",
      "udf.sales/u10",
      "udf.sales/u11",
      "udf.sales/u2",
      "udf.sales/u9",
    ]);
  });

  it("WHEN the first apply of a project was killed THEN the journal alone is read as its inventory", async () => {
    const { w } = await writer();
    w.set("udf.sales/u0", entry("u-0"));
    await w.flush();
    // The first write of a project is whole (the inventory file did not exist); then the journal.
    expect(existsSync(file("inventory.json"))).toBe(true);
    w.set("udf.sales/u1", entry("u-1"));
    await w.flush();
    rmSync(file("inventory.json"));
    expect(Object.keys((await open().readInventory())!.objects)).toEqual(["udf.sales/u1"]);
  });

  it("WHEN the kill cut the last record short THEN it is ignored, and the next appends go to a clean journal", async () => {
    await written(1);
    const first = await writer();
    first.w.set("udf.sales/u5", entry("u-5"));
    await first.w.flush();
    appendFileSync(file("inventory.journal"), '{"address":"udf.sales/u6","entry":{"kind":"Ud');
    const { w } = await writer();
    expect(w.get("udf.sales/u5")?.id).toBe("u-5");
    expect(w.get("udf.sales/u6")).toBeUndefined();
    // The whole write due after a kill drops the journal; a later append starts a clean one.
    w.set("udf.sales/u7", entry("u-7"));
    await w.flush();
    w.set("udf.sales/u8", entry("u-8"));
    await w.flush();
    expect(Object.keys((await open().readInventory())!.objects).sort()).toEqual([
      "udf.sales/u0",
      "udf.sales/u5",
      "udf.sales/u7",
      "udf.sales/u8",
    ]);
  });

  it("WHEN a record before the last one is damaged THEN the read stops with the file and line", async () => {
    await written(1);
    writeFileSync(
      file("inventory.journal"),
      `{"address":"udf.sales/u5","entry":{"kind":"Nope"}}\n${JSON.stringify({ address: "udf.sales/u6", entry: entry("u-6") })}\n`,
    );
    const e = await failure(open().readInventory());
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toContain(`Inventory journal ${STATE}/inventory.journal line 1 is not a journal record: kind:`);
  });
});
