/**
 * Helpers for the Postgres suites: they talk to a real server, the one `make postgres` starts
 * (scripts/postgres.sh), or the one CORDON_POSTGRES_URL names. With CORDON_REQUIRE_POSTGRES=1 (set by
 * `make test` and `.ci/run`) a missing server fails the suites; without it, a machine with no server runs
 * none of them.
 */

import { randomUUID } from "node:crypto";
import pg from "pg";

/** The server's URL: CORDON_POSTGRES_URL, else the one scripts/postgres.sh starts. */
export const POSTGRES_URL =
  process.env.CORDON_POSTGRES_URL ?? "postgres://cordon:cordon@127.0.0.1:54329/cordon";

const POSTGRES_REQUIRED = process.env.CORDON_REQUIRE_POSTGRES === "1";

/** Why the server cannot be used, or undefined when it answers. */
async function unreachable(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

const problem = await unreachable(POSTGRES_URL);

/** True when the suites are required, or the server answers. */
export const POSTGRES_SUITES = POSTGRES_REQUIRED || problem === undefined;

/** Fails (in a suite's beforeAll) when the suites are required and the server does not answer. */
export function requirePostgres(): void {
  if (problem !== undefined) {
    throw new Error(
      `CORDON_REQUIRE_POSTGRES=1 but no Postgres server answers at ${POSTGRES_URL} (${problem}): run make postgres (scripts/postgres.sh), or set CORDON_POSTGRES_URL.`,
    );
  }
}

/** A new pool on the server (or as `config` says), as another process would have; ended by its owner. */
export function newPool(config: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, ...config });
  // An idle client whose connection dies must not take the test process down.
  pool.on("error", () => {});
  return pool;
}

/** A table name of the suite's own, so that runs of the suites never see one another's rows. */
export function freshTable(): string {
  return `cordon_test_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
}

/** Drops a journal's two tables (the records' first: they refer to the runs). */
export async function dropTables(pool: pg.Pool, table: string): Promise<void> {
  await pool.query(`DROP TABLE IF EXISTS "${table}_records", "${table}"`);
}

/** The URL of database `name` on the server (DBOS makes its system database there as it launches). */
export function databaseUrl(name: string): string {
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A database name that only one run of a suite uses. */
export function freshDatabase(): string {
  return `cordon_test_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
}

/** Drops database `name` and ends its sessions (a killed worker's may linger). */
export async function dropDatabase(name: string): Promise<void> {
  const pool = newPool({ max: 1 });
  try {
    await pool.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await pool.end();
  }
}
