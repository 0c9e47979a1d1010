/** The file journal store keeps every rule of a RunJournal, and what a store in files must add to them. */

import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UserError } from "../../common/errors.js";
import { fileJournal } from "../../src/codemode/durable/file-journal.js";
import { MAX_JOURNAL_RECORD_CHARS, MAX_RUN_ID_CHARS } from "../../src/codemode/durable/run-journal.js";
import { describeJournalStore } from "./journal-store-suite.js";

const directory = mkdtempSync(join(tmpdir(), "cordon-file-journal-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
describeJournalStore("file", { open: () => fileJournal(join(directory, "runs")), close: async () => {} });

const lease = (owner: string, until = Date.now() + 60_000) => ({ owner, until });
const record = (seq: number, text = `record ${seq}`) => ({ seq, text });
let folders = 0;
/** A folder of its own for a test, not yet made. */
const newFolder = () => join(directory, `store-${++folders}`);
const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean);

describe("the file journal", () => {
  it("keeps a run whose log ends in a line torn by a crash: the torn line is never read, and appends go on after it", async () => {
    const folder = newFolder();
    const journal = fileJournal(folder);
    await journal.create("torn", record(0), lease("a"));
    await journal.append("torn", [record(1)], "a");
    const log = join(folder, "torn.log");
    const whole = readFileSync(log, "utf8");
    // What a crash in the middle of writing record 2 leaves: the start of its line.
    await journal.append("torn", [record(2, "x".repeat(200))], "a");
    const written = readFileSync(log);
    writeFileSync(log, written.subarray(0, whole.length + 120));

    const again = fileJournal(folder);
    expect((await again.read("torn"))?.records).toEqual([record(0), record(1)]);
    expect(await again.append("torn", [record(2, "after the crash")], "a")).toBe(true);
    expect((await fileJournal(folder).read("torn"))?.records).toEqual([
      record(0),
      record(1),
      record(2, "after the crash"),
    ]);
    expect(await fileJournal(folder).incomplete(Date.now() + 120_000, 10)).toEqual([
      expect.objectContaining({ runId: "torn", records: 3 }),
    ]);
  });

  it("writes the records of one append as one line: a crash keeps all of them or none", async () => {
    const folder = newFolder();
    const journal = fileJournal(folder);
    await journal.create("batch", record(0), lease("a"));
    const log = join(folder, "batch.log");
    const before = readFileSync(log);
    const batch = Array.from({ length: 100 }, (_, i) => record(i + 1));
    expect(await journal.append("batch", batch, "a")).toBe(true);
    expect(lines(log)).toHaveLength(2);
    // Torn one byte short of its end: not one of the 100 records is read.
    writeFileSync(log, readFileSync(log).subarray(0, -2));
    expect(readFileSync(log).length).toBeGreaterThan(before.length);
    expect((await fileJournal(folder).read("batch"))?.records).toEqual([record(0)]);
  });

  it("ignores a damaged line in the middle of a log and reads the lines after it", async () => {
    const folder = newFolder();
    const journal = fileJournal(folder);
    await journal.create("damaged", record(0), lease("a"));
    const forged = '{"id":"x","op":"append","owner":"a"}\t{"seq":1,"text":"forged"}';
    appendFileSync(join(folder, "damaged.log"), `\n0badc0de ${forged}\n`);
    expect(await journal.append("damaged", [record(1)], "a")).toBe(true);
    expect((await fileJournal(folder).read("damaged"))?.records).toEqual([record(0), record(1)]);
  });

  it("keeps a record of the longest size a store must keep, exactly", async () => {
    const folder = newFolder();
    const journal = fileJournal(folder);
    const text = "é\u2028\n🧾\u0000"
      .repeat(MAX_JOURNAL_RECORD_CHARS / 6)
      .padEnd(MAX_JOURNAL_RECORD_CHARS, "z");
    expect(text).toHaveLength(MAX_JOURNAL_RECORD_CHARS);
    await journal.create("large", record(0), lease("a"));
    expect(await journal.append("large", [record(1, text), record(2)], "a")).toBe(true);
    const records = (await fileJournal(folder).read("large"))?.records;
    expect(records?.[1]?.text === text).toBe(true);
    expect(records?.map((r) => r.seq)).toEqual([0, 1, 2]);
  }, 60_000);

  it("refuses run ids that would reach a path outside its folder (../x, /, NUL) with a UserError, touching no file", async () => {
    const parent = newFolder();
    const folder = join(parent, "journal");
    const journal = fileJournal(folder);
    await journal.create("inside", record(0), lease("a"));
    const attacks = [
      "../x",
      "../../etc/passwd",
      "a/b",
      "/tmp/x",
      "x\u0000y",
      ".",
      "..",
      ".hidden",
      "",
      "x".repeat(MAX_RUN_ID_CHARS + 1),
    ];
    for (const runId of attacks) {
      await expect(journal.create(runId, record(0), lease("a")), runId).rejects.toThrow(UserError);
      await expect(journal.read(runId), runId).rejects.toThrow(/cannot name a file of the file journal/);
      await expect(journal.append(runId, [record(1)], "a"), runId).rejects.toThrow(UserError);
      await expect(journal.claim(runId, lease("b"), Date.now()), runId).rejects.toThrow(UserError);
      await expect(journal.remove(runId), runId).rejects.toThrow(UserError);
    }
    expect(readdirSync(parent)).toEqual(["journal"]);
    expect(readdirSync(folder).sort()).toEqual(["inside.log"]);
    // The longest id that is a file name is one.
    expect(await journal.create("x".repeat(MAX_RUN_ID_CHARS), record(0), lease("a"))).toBe(true);
  });

  it("creates its folder if missing, readable by its owner only (0700), and every file 0600", async () => {
    const folder = join(newFolder(), "deeper", "journal");
    const journal = fileJournal(folder);
    await journal.create("private", record(0), lease("a", Date.now() - 1));
    await journal.append("private", [record(1)], "a");
    await journal.claim("private", lease("b"), Date.now());
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const names = readdirSync(folder).sort();
    expect(names).toEqual(["private.log", "private.state"]);
    for (const name of names) expect(statSync(join(folder, name)).mode & 0o777, name).toBe(0o600);
  });

  it("lists incomplete runs from each run's state file and the log after it, not from every record", async () => {
    const folder = newFolder();
    const journal = fileJournal(folder);
    const until = Date.now() + 1_000;
    await journal.create("long", record(0), lease("a", until - 500));
    await journal.append("long", [record(1, "the start of a long run")], "a");
    // A renewal writes the state file; the append after it is only in the log.
    await journal.renew("long", lease("a", until));
    await journal.append("long", [record(2)], "a");
    // Spoil the record before the renewal: a store that read it would no longer count it.
    const log = join(folder, "long.log");
    writeFileSync(
      log,
      readFileSync(log, "utf8").replace("the start of a long run", "the start of a lost run"),
    );
    expect(await fileJournal(folder).incomplete(until + 1, 10)).toEqual([
      { runId: "long", leaseExpired: until, records: 3 },
    ]);
  });

  it("reads a run removed and created again under its id afresh, not from what it knew of the old one", async () => {
    const folder = newFolder();
    const journal = fileJournal(folder);
    const other = fileJournal(folder);
    await journal.create("again", record(0), lease("a", Date.now() - 1));
    await journal.append("again", [record(1), record(2)], "a");
    await journal.claim("again", lease("b", Date.now() - 1), Date.now());
    await other.remove("again");
    await other.create("again", record(0, "new"), lease("c", Date.now() - 1));
    expect(await journal.append("again", [record(3)], "b")).toBe(false);
    expect(await journal.append("again", [record(1)], "c")).toBe(true);
    expect((await journal.read("again"))?.records).toEqual([record(0, "new"), record(1)]);
    expect((await journal.incomplete(Date.now(), 10)).map((run) => run.records)).toEqual([2]);
  });

  it("refuses a folder that is not a path with a UserError", () => {
    expect(() => fileJournal("")).toThrow(UserError);
  });
});
