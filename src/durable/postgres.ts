/**
 * The store of durable runs' journals in Postgres, through a node-postgres Pool: one database that a
 * fleet of workers shares (src/codemode/durable/run-journal.ts has the rules).
 *
 * Each method is one SQL statement, so one transaction. A claim is one UPDATE of a lease that expired;
 * an append updates the run's row only where the caller holds the lease, the run has not ended and the
 * records follow on, and inserts the records only where that row was updated: a lost lease refuses the
 * write atomically, and the row's lock orders the append against a claim at the same moment. A write is
 * durable when its promise resolves: its commit waits for the WAL flush (synchronous_commit is raised to
 * `on` for that transaction where the session has it `off`).
 */

import { createHash } from "node:crypto";
import type {
  IncompleteRun,
  JournalRecord,
  Lease,
  RunJournal,
  StoredRun,
} from "../codemode/durable/run-journal.js";
import { journalFailure } from "./postgres-errors.js";
import {
  DEFAULT_JOURNAL_TABLE,
  type JournalTables,
  journalTables,
  schemaStatement,
} from "./postgres-schema.js";

/**
 * What the journal uses of a node-postgres `Pool` (a `pg.Pool` is one): described here rather than
 * imported, so that cordon's declarations need neither `pg` nor `@types/pg`.
 */
export interface PostgresPool {
  /**
   * Runs one statement on a pooled connection: prepared once per connection when it has a `name`;
   * several in one transaction when it has neither a name nor values.
   */
  query(query: { text: string; values?: unknown[]; name?: string }): Promise<{ rows: unknown[] }>;
}

/** Where a Postgres journal keeps its runs. */
export interface PostgresJournalOptions {
  /** A node-postgres Pool on the database that keeps the runs. The journal never ends it: its owner does. */
  pool: PostgresPool;
  /**
   * The runs' table, `name` or `schema.name` (default `cordon_runs`); the records go to `<name>_records`
   * beside it. Both are made on first use where they are missing.
   */
  table?: string;
}

/** The statement's part that makes its commit wait for the WAL flush (a local setting: this transaction's). */
const DURABLE = `durable AS (
  SELECT set_config('synchronous_commit', 'on', true) WHERE current_setting('synchronous_commit') = 'off')`;
/** Its reference: a query's unreferenced plain WITH part is never run. */
const DURABLE_USED = "(SELECT count(*) FROM durable) AS durable";

/** Half of a surrogate pair alone: UTF-8, and so Postgres's `text`, has no place for it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A record's text as stored: as it is, or where Postgres cannot hold it, as a JSON string (`quoted`). */
function storedText(text: string): { body: string; quoted: boolean } {
  // Postgres's text cannot hold a NUL character either.
  return text.includes("\u0000") || LONE_SURROGATE.test(text)
    ? { body: JSON.stringify(text), quoted: true }
    : { body: text, quoted: false };
}

/** Whether `records` have consecutive `seq`s (the store checks that the first follows the run's last). */
function consecutive(records: readonly JournalRecord[]): boolean {
  return records.every((record, i) => Number.isInteger(record.seq) && record.seq === records[0]!.seq + i);
}

/** Makes a {@link RunJournal} in Postgres on a node-postgres `pool`, its tables made on first use. */
export function postgresJournal(options: PostgresJournalOptions): RunJournal {
  const { pool } = options;
  const tables = journalTables(options.table ?? DEFAULT_JOURNAL_TABLE);
  const sql = statements(tables);
  let ready: Promise<void> | undefined;

  const query = async <Row>(doing: string, statement: Statement, values: unknown[]): Promise<Row[]> => {
    ready ??= pool.query({ text: schemaStatement(tables) }).then(
      () => {},
      (error: unknown) => {
        ready = undefined; // the next call tries again
        throw journalFailure(`make its tables (${tables.name})`, error);
      },
    );
    await ready;
    try {
      return (await pool.query({ ...statement, values })).rows as Row[];
    } catch (error) {
      throw journalFailure(doing, error);
    }
  };

  const write = async (runId: string, records: readonly JournalRecord[], owner: string, end: boolean) => {
    if (!consecutive(records)) return false;
    const stored = records.map((record) => storedText(record.text));
    const [row] = await query<{ written: string }>(`${end ? "end" : "append to"} run ${runId}`, sql.write, [
      runId,
      owner,
      records[0]?.seq ?? null,
      records.length,
      stored.map((text) => text.body),
      stored.map((text) => text.quoted),
      end,
    ]);
    return row?.written === "1";
  };

  return {
    async create(runId, header, lease) {
      if (header.seq !== 0) return false;
      const { body, quoted } = storedText(header.text);
      const [row] = await query<{ created: string }>(`create run ${runId}`, sql.create, [
        runId,
        lease.owner,
        lease.until,
        body,
        quoted,
      ]);
      return row?.created === "1";
    },
    append: (runId, records, owner) => write(runId, records, owner, false),
    end: (runId, records, owner) => write(runId, records, owner, true),
    async renew(runId, lease) {
      const [row] = await query<{ renewed: string }>(`renew the lease of run ${runId}`, sql.renew, [
        runId,
        lease.owner,
        lease.until,
      ]);
      return row?.renewed === "1";
    },
    async claim(runId, lease, now) {
      const [row] = await query<{ claimed: string }>(`claim run ${runId}`, sql.claim, [
        runId,
        lease.owner,
        lease.until,
        now,
      ]);
      return row?.claimed === "1";
    },
    async read(runId) {
      const rows = await query<RunRow>(`read run ${runId}`, sql.read, [runId]);
      return rows.length === 0 ? undefined : storedRun(runId, rows);
    },
    async incomplete(now, limit = 100) {
      const rows = await query<{ run_id: string; lease_until: number; records: number }>(
        "list the incomplete runs",
        sql.incomplete,
        [now, limit],
      );
      return rows.map(
        (row): IncompleteRun => ({
          runId: row.run_id,
          leaseExpired: row.lease_until,
          records: row.records,
        }),
      );
    },
    async remove(runId) {
      await query(`remove run ${runId}`, sql.remove, [runId]);
    },
  };
}

/** A row of `read`: the run's columns, and one record's (none for a run without records). */
interface RunRow {
  lease_owner: string;
  lease_until: number;
  ended: boolean;
  seq: number | null;
  body: string | null;
  quoted: boolean | null;
}

function storedRun(runId: string, rows: readonly RunRow[]): StoredRun {
  const first = rows[0]!;
  const records: JournalRecord[] = [];
  for (const row of rows) {
    if (row.seq === null || row.body === null) continue;
    records.push({ seq: row.seq, text: row.quoted ? (JSON.parse(row.body) as string) : row.body });
  }
  const lease: Lease = { owner: first.lease_owner, until: first.lease_until };
  return { runId, records, lease, ended: first.ended };
}

/** A statement of the journal, prepared under its name on each connection that runs it. */
interface Statement {
  name: string;
  text: string;
}

/**
 * The journal's statements on its tables, named after them: prepared, each is parsed and planned once
 * per connection rather than at every call (100 appends at once took about a third less time on the
 * 2-core machine). Names are short, as Postgres cuts them at 63 bytes. Counts come back as text
 * (Postgres's bigint).
 */
function statements(tables: JournalTables): Record<StatementKind, Statement> {
  const prefix = `cordon_journal_${createHash("sha256").update(tables.name).digest("hex").slice(0, 16)}`;
  const texts = statementTexts(tables);
  const named = Object.entries(texts).map(([kind, text]) => [kind, { name: `${prefix}_${kind}`, text }]);
  return Object.fromEntries(named) as Record<StatementKind, Statement>;
}

type StatementKind = keyof ReturnType<typeof statementTexts>;

function statementTexts({ runs, records }: JournalTables) {
  return {
    // $1 run, $2 owner, $3 until, $4 header's body, $5 quoted.
    create: `WITH ${DURABLE},
      run AS (
        INSERT INTO ${runs} (run_id, lease_owner, lease_until, ended, records) VALUES ($1, $2, $3, false, 1)
        ON CONFLICT (run_id) DO NOTHING RETURNING run_id),
      header AS (INSERT INTO ${records} (run_id, seq, body, quoted) SELECT run_id, 0, $4, $5 FROM run)
      SELECT (SELECT count(*) FROM run) AS created, ${DURABLE_USED}`,
    // $1 run, $2 owner, $3 first seq (null: no records), $4 how many, $5 bodies, $6 quoted, $7 end.
    write: `WITH ${DURABLE},
      run AS (
        UPDATE ${runs} SET records = records + $4::integer, ended = $7::boolean
        WHERE run_id = $1 AND lease_owner = $2 AND NOT ended AND ($3::integer IS NULL OR records = $3::integer)
        RETURNING run_id),
      added AS (
        INSERT INTO ${records} (run_id, seq, body, quoted)
        SELECT run.run_id, $3::integer + (r.n - 1)::integer, r.body, r.quoted
        FROM run, unnest($5::text[], $6::boolean[]) WITH ORDINALITY AS r(body, quoted, n))
      SELECT (SELECT count(*) FROM run) AS written, ${DURABLE_USED}`,
    // $1 run, $2 owner, $3 until.
    renew: `WITH ${DURABLE},
      run AS (
        UPDATE ${runs} SET lease_until = $3 WHERE run_id = $1 AND lease_owner = $2 AND NOT ended
        RETURNING run_id)
      SELECT (SELECT count(*) FROM run) AS renewed, ${DURABLE_USED}`,
    // $1 run, $2 owner, $3 until, $4 now.
    claim: `WITH ${DURABLE},
      run AS (
        UPDATE ${runs} SET lease_owner = $2, lease_until = $3
        WHERE run_id = $1 AND NOT ended AND lease_until <= $4
        RETURNING run_id)
      SELECT (SELECT count(*) FROM run) AS claimed, ${DURABLE_USED}`,
    read: `SELECT r.lease_owner, r.lease_until, r.ended, c.seq, c.body, c.quoted
      FROM ${runs} r LEFT JOIN ${records} c ON c.run_id = r.run_id
      WHERE r.run_id = $1 ORDER BY c.seq`,
    incomplete: `SELECT run_id, lease_until, records FROM ${runs}
      WHERE NOT ended AND lease_until <= $1 ORDER BY lease_until, run_id LIMIT $2`,
    // The records go with their run (ON DELETE CASCADE).
    remove: `WITH ${DURABLE}, run AS (DELETE FROM ${runs} WHERE run_id = $1)
      SELECT ${DURABLE_USED}`,
  };
}
