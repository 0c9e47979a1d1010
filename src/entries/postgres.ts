/**
 * `cordon/postgres`: the store of durable runs' journals in Postgres, for workers that share one
 * database. The host makes a node-postgres Pool (`pg`, an optional peer) and gives it to
 * `postgresJournal({ pool })`; cordon itself never loads `pg`.
 */

export { type PostgresJournalOptions, type PostgresPool, postgresJournal } from "../durable/postgres.js";
