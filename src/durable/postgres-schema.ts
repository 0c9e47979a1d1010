/**
 * The Postgres journal's two tables: one row per run (its lease, whether it ended, how many records it
 * has) and one row per record. They are made on first use, by whichever process gets there first.
 */

import { UserError } from "../../common/errors.js";

/** The runs' table when none is named; the records go to `cordon_runs_records`. */
export const DEFAULT_JOURNAL_TABLE = "cordon_runs";

/** Postgres cuts longer identifiers short, silently: the longest name plus `_records` must fit. */
const MAX_IDENTIFIER_BYTES = 63;
const LONGEST_SUFFIX = "_records";
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Where the journal's rows live, as quoted SQL names. */
export interface JournalTables {
  /** `"schema"."table"`, or `"table"`: one row per run. */
  runs: string;
  /** The same with `_records`: one row per record. */
  records: string;
  /** The partial index of runs not ended, by lease expiry (unqualified: it lives beside its table). */
  expiryIndex: string;
  /** The name as given, for messages and the schema lock. */
  name: string;
}

/** Checks a table name (`table` or `schema.table`) and gives the quoted names of the journal's objects. */
export function journalTables(name: string): JournalTables {
  const parts = name.split(".");
  const table = parts.at(-1) ?? "";
  const valid =
    parts.length <= 2 &&
    parts.every((part) => IDENTIFIER.test(part)) &&
    Buffer.byteLength(table) + LONGEST_SUFFIX.length <= MAX_IDENTIFIER_BYTES;
  if (!valid) {
    throw new UserError(
      `postgresJournal: ${JSON.stringify(name)} is not a table name it can use. Give a name of letters, ` +
        `digits and underscores that does not start with a digit, at most ` +
        `${MAX_IDENTIFIER_BYTES - LONGEST_SUFFIX.length} characters, optionally after a schema and a dot ` +
        `("journal.cordon_runs").`,
    );
  }
  const prefix = parts.length === 2 ? `"${parts[0]}".` : "";
  return {
    runs: `${prefix}"${table}"`,
    records: `${prefix}"${table}${LONGEST_SUFFIX}"`,
    expiryIndex: `"${table}_expiry"`,
    name,
  };
}

/**
 * The statement that makes the tables where they are missing: one transaction (a simple query of several
 * statements is one), under an advisory lock, because two `CREATE TABLE IF NOT EXISTS` at once can both
 * find no table and the second then fails. Where the tables exist it takes no lock and creates nothing,
 * so a role without CREATE on the schema can use tables made ahead.
 */
export function schemaStatement(tables: JournalTables): string {
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  return `DO $cordon$ BEGIN
  IF to_regclass(${literal(tables.runs)}) IS NULL OR to_regclass(${literal(tables.records)}) IS NULL THEN
    PERFORM pg_advisory_xact_lock(hashtext(${literal(`cordon journal ${tables.name}`)}));
    CREATE TABLE IF NOT EXISTS ${tables.runs} (
      run_id text PRIMARY KEY,
      lease_owner text NOT NULL,
      lease_until double precision NOT NULL,
      ended boolean NOT NULL DEFAULT false,
      records integer NOT NULL
    );
    CREATE INDEX IF NOT EXISTS ${tables.expiryIndex} ON ${tables.runs} (lease_until) WHERE NOT ended;
    CREATE TABLE IF NOT EXISTS ${tables.records} (
      run_id text NOT NULL REFERENCES ${tables.runs} (run_id) ON DELETE CASCADE,
      seq integer NOT NULL,
      body text NOT NULL,
      quoted boolean NOT NULL,
      PRIMARY KEY (run_id, seq)
    );
  END IF;
END $cordon$;`;
}
