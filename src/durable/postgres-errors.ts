/**
 * What the Postgres journal says when the database fails it: what it was doing, what went wrong, and
 * what to do about it, with node-postgres's error as the cause.
 */

/** Errors of the connection itself (Node's socket codes), before or while speaking to the server. */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EPIPE",
]);

/** What to do, by what went wrong (a socket code, or Postgres's SQLSTATE). */
function advice(error: { code?: unknown; message?: unknown }): string {
  const code = typeof error.code === "string" ? error.code : "";
  const message = typeof error.message === "string" ? error.message : "";
  if (
    UNREACHABLE_CODES.has(code) ||
    /timeout exceeded when trying to connect|Connection terminated/i.test(message)
  ) {
    return "The database server could not be reached: check that it is running and that the pool's host and port (or connectionString) point at it.";
  }
  if (code === "28P01" || code === "28000" || /password/i.test(message)) {
    return "The server refused the pool's login: check the pool's user and password, and the server's pg_hba.conf.";
  }
  if (code === "3D000") {
    return "The pool's database does not exist: create it, or point the pool at one that does.";
  }
  if (code === "42501") {
    return "The pool's role lacks a privilege: it needs CREATE on the schema to make the journal's tables on first use (or tables made ahead), and SELECT, INSERT, UPDATE and DELETE on them.";
  }
  if (code.startsWith("57P") || code.startsWith("08") || code.startsWith("53")) {
    return "The server is shutting down, restarting or out of resources: try again once it is back.";
  }
  return "Postgres's own error is the cause.";
}

/** The error a journal method rejects with when Postgres failed it: `doing` says what it was doing. */
export function journalFailure(doing: string, error: unknown): Error {
  const details = typeof error === "object" && error !== null ? error : { message: String(error) };
  const reason =
    "message" in details && typeof details.message === "string" ? details.message : String(error);
  const code = "code" in details && typeof details.code === "string" ? ` (${details.code})` : "";
  return new Error(`The Postgres journal could not ${doing}: ${reason}${code}. ${advice(details)}`, {
    cause: error,
  });
}
