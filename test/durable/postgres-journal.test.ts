/**
 * The Postgres journal (cordon/postgres) against a real server: every rule of a RunJournal, each handle on
 * a pool of its own as another process would have; claims and first uses from separate processes at
 * once; the longest records and text Postgres's `text` cannot hold; durable commits whatever the session
 * says; and clear errors for a server it cannot reach or a table name it cannot use.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { join } from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UserError } from "../../common/errors.js";
import { MAX_JOURNAL_RECORD_CHARS } from "../../src/codemode/durable/run-journal.js";
import { postgresJournal } from "../../src/durable/postgres.js";
import { describeJournalStore } from "./journal-store-suite.js";
import {
  dropTables,
  freshTable,
  newPool,
  POSTGRES_SUITES,
  POSTGRES_URL,
  requirePostgres,
} from "./postgres-server.js";

const PROCESS = join(import.meta.dirname, "fixtures", "journal-process.ts");
const pools: pg.Pool[] = [];
const tables: string[] = [];

/** A pool of the suite's own, ended after it. */
function pool(config: pg.PoolConfig = {}): pg.Pool {
  const made = newPool(config);
  pools.push(made);
  return made;
}

/** A table name that only this suite uses, dropped after it. */
function table(): string {
  const name = freshTable();
  tables.push(name);
  return name;
}

afterAll(async () => {
  const admin = newPool({ max: 1 });
  for (const name of tables) await dropTables(admin, name);
  await admin.end();
  await Promise.all(pools.splice(0).map((each) => each.end()));
});

/** What one process of the fleet answered. */
type Answer = { answer?: boolean; error?: string };

/** Starts a fleet process (fixtures/journal-process.ts) that acts when it reads "go". */
function fleetProcess(args: string[]): {
  child: ChildProcess;
  ready: Promise<void>;
  answer: Promise<Answer>;
} {
  const child = spawn(process.execPath, ["--import", "tsx", PROCESS, POSTGRES_URL, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("ready\n")) resolve();
    });
    exited.then((code) =>
      reject(new Error(`a fleet process exited (${code}) before it was ready: ${stderr}`)),
    );
  });
  const answer = exited.then((code) => {
    if (code !== 0) throw new Error(`a fleet process exited with ${code}: ${stderr}`);
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as Answer;
  });
  return { child, ready, answer };
}

/** Starts `size` fleet processes, waits until each is connected, then says "go" to all at once. */
async function fleet(size: number, argsOf: (i: number) => string[]): Promise<Answer[]> {
  const processes = Array.from({ length: size }, (_, i) => fleetProcess(argsOf(i)));
  await Promise.all(processes.map((each) => each.ready));
  for (const each of processes) each.child.stdin?.end("go\n");
  return Promise.all(processes.map((each) => each.answer));
}

describe.runIf(POSTGRES_SUITES)("the Postgres journal", () => {
  beforeAll(requirePostgres);

  // Every handle a new pool, as another process would have; one table for the whole suite.
  const shared = table();
  describeJournalStore("postgres", {
    open: () => postgresJournal({ pool: pool(), table: shared }),
    close: async () => {},
  });

  it("of claims of one expired lease from separate processes at once, exactly one wins", async () => {
    const name = table();
    const journal = postgresJournal({ pool: pool(), table: name });
    const runId = `run-${randomUUID()}`;
    const now = Date.now();
    expect(await journal.create(runId, { seq: 0, text: "header" }, { owner: "dead", until: now - 1 })).toBe(
      true,
    );
    const answers = await fleet(6, (i) => [
      name,
      "claim",
      runId,
      `claimer-${i}`,
      String(now + 60_000),
      String(now),
    ]);
    expect(answers.map((each) => each.error).filter(Boolean)).toEqual([]);
    expect(answers.filter((each) => each.answer === true)).toHaveLength(1);
    const winner = `claimer-${answers.findIndex((each) => each.answer === true)}`;
    expect((await journal.read(runId))?.lease).toEqual({ owner: winner, until: now + 60_000 });
  }, 60_000);

  it("makes its tables on first use when separate processes start on a new database at once", async () => {
    const name = table();
    const until = String(Date.now() + 60_000);
    const runIds = Array.from({ length: 6 }, () => `run-${randomUUID()}`);
    const answers = await fleet(6, (i) => [name, "create", runIds[i]!, `process-${i}`, until]);
    expect(answers).toEqual(runIds.map(() => ({ answer: true })));
    const journal = postgresJournal({ pool: pool(), table: name });
    for (const [i, runId] of runIds.entries()) {
      expect((await journal.read(runId))?.records).toEqual([{ seq: 0, text: `header by process-${i}` }]);
    }
  }, 60_000);

  it("keeps a record of the longest length, and text Postgres's text type cannot hold, exactly", async () => {
    const journal = postgresJournal({ pool: pool(), table: shared });
    const runId = `run-${randomUUID()}`;
    const longest = "x".repeat(MAX_JOURNAL_RECORD_CHARS - 1) + "\u0000";
    const lone =
      "a lone high surrogate \uD83E and a lone low one \uDDFE, a NUL \u0000, and \\u0000 typed out";
    expect(
      await journal.create(runId, { seq: 0, text: lone }, { owner: "a", until: Date.now() + 60_000 }),
    ).toBe(true);
    expect(await journal.append(runId, [{ seq: 1, text: longest }], "a")).toBe(true);
    const records = (await postgresJournal({ pool: pool(), table: shared }).read(runId))?.records;
    expect(records?.[0]?.text).toBe(lone);
    expect(records?.[1]?.text.length).toBe(MAX_JOURNAL_RECORD_CHARS);
    expect(records?.[1]?.text === longest).toBe(true);
  }, 60_000);

  it("keeps text it can hold as it is, readable in its table", async () => {
    const owner = pool();
    const journal = postgresJournal({ pool: owner, table: shared });
    const runId = `run-${randomUUID()}`;
    await journal.create(
      runId,
      { seq: 0, text: '{"kind":"header","quote":"\\""}' },
      { owner: "a", until: 0 },
    );
    const { rows } = await owner.query(`SELECT body, quoted FROM "${shared}_records" WHERE run_id = $1`, [
      runId,
    ]);
    expect(rows).toEqual([{ body: '{"kind":"header","quote":"\\""}', quoted: false }]);
  });

  it("commits every write durably even where the session has synchronous_commit off, and leaves the session as it was", async () => {
    const name = table();
    const lax = pool({ max: 1, options: "-c synchronous_commit=off" });
    const journal = postgresJournal({ pool: lax, table: name });
    const runId = `run-${randomUUID()}`;
    await journal.read(runId); // makes the tables
    // A trigger notes the setting each write commits under (row triggers fire after the whole statement).
    await lax.query(`CREATE TABLE "${name}_seen" (setting text);
      CREATE FUNCTION "${name}_note"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        INSERT INTO "${name}_seen" VALUES (current_setting('synchronous_commit')); RETURN NULL; END $$;
      CREATE TRIGGER note AFTER INSERT OR UPDATE OR DELETE ON "${name}"
        FOR EACH ROW EXECUTE FUNCTION "${name}_note"();`);
    try {
      const now = Date.now();
      expect(await journal.create(runId, { seq: 0, text: "h" }, { owner: "a", until: now - 1 })).toBe(true);
      expect(await journal.append(runId, [{ seq: 1, text: "r" }], "a")).toBe(true);
      expect(await journal.renew(runId, { owner: "a", until: now - 1 })).toBe(true);
      expect(await journal.claim(runId, { owner: "b", until: now + 60_000 }, now)).toBe(true);
      expect(await journal.end(runId, [], "b")).toBe(true);
      await journal.remove(runId);
      const seen = await lax.query(`SELECT setting FROM "${name}_seen"`);
      expect(seen.rows.map((row) => row.setting)).toEqual(["on", "on", "on", "on", "on", "on"]);
      expect((await lax.query("SHOW synchronous_commit")).rows).toEqual([{ synchronous_commit: "off" }]);
    } finally {
      await lax.query(`DROP TABLE "${name}_seen"; DROP FUNCTION "${name}_note"() CASCADE`);
    }
  });

  it("keeps two journals of different tables on one connection apart (each prepares statements of its own)", async () => {
    const one = pool({ max: 1 });
    const [first, second] = [table(), table()].map((name) => postgresJournal({ pool: one, table: name }));
    const runId = `run-${randomUUID()}`;
    expect(await first!.create(runId, { seq: 0, text: "first" }, { owner: "a", until: 0 })).toBe(true);
    expect(await second!.create(runId, { seq: 0, text: "second" }, { owner: "b", until: 0 })).toBe(true);
    expect(await first!.append(runId, [{ seq: 1, text: "first's" }], "a")).toBe(true);
    expect((await first!.read(runId))?.records.map((record) => record.text)).toEqual(["first", "first's"]);
    expect((await second!.read(runId))?.records.map((record) => record.text)).toEqual(["second"]);
  });

  it("keeps its tables in the schema its table name names", async () => {
    const schema = `cordon_test_schema_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const admin = pool({ max: 1 });
    await admin.query(`CREATE SCHEMA "${schema}"`);
    try {
      const journal = postgresJournal({ pool: admin, table: `${schema}.journal` });
      const runId = `run-${randomUUID()}`;
      expect(await journal.create(runId, { seq: 0, text: "h" }, { owner: "a", until: 0 })).toBe(true);
      const { rows } = await admin.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
        [schema],
      );
      expect(rows.map((row) => row.table_name)).toEqual(["journal", "journal_records"]);
    } finally {
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    }
  });

  it("rejects with what was wrong and what to do when the pool cannot reach the server", async () => {
    // A port that was just free: nothing listens there.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const journal = postgresJournal({
      pool: pool({ connectionString: `postgres://cordon:cordon@127.0.0.1:${port}/cordon` }),
    });
    const failure = journal.read("run-1");
    await expect(failure).rejects.toThrow(/^The Postgres journal could not make its tables \(cordon_runs\)/);
    await expect(failure).rejects.toThrow(/ECONNREFUSED/);
    await expect(failure).rejects.toThrow(/check that it is running and that the pool's host and port/);
  });

  it("rejects with what was wrong and what to do when the server refuses the pool's login", async () => {
    const url = new URL(POSTGRES_URL);
    url.password = "not-the-password";
    const journal = postgresJournal({ pool: pool({ connectionString: url.href }), table: shared });
    await expect(journal.read("run-1")).rejects.toThrow(
      /refused the pool's login: check the pool's user and password/,
    );
  });

  it("refuses a table name it cannot use, saying which names it takes", () => {
    for (const bad of ['runs"; DROP TABLE x; --', "1runs", "a.b.c", "", "x".repeat(56)]) {
      expect(() => postgresJournal({ pool: pool(), table: bad })).toThrow(UserError);
    }
    expect(() => postgresJournal({ pool: pool(), table: "bad name" })).toThrow(
      /"bad name" is not a table name it can use\. Give a name of letters, digits and underscores/,
    );
  });
});
