/**
 * `cordon/durable`: runs that survive a crash. `codeMode({ journal })` takes one of these stores (or
 * your own `RunJournal`), and `cm.recover(runId)` continues a run whose process died (docs/durability.md).
 */

export { fileJournal } from "../codemode/durable/file-journal.js";
export { type RecoveryProblem, RecoveryRefused } from "../codemode/durable/journaled-run.js";
export { memoryJournal } from "../codemode/durable/memory-journal.js";
export {
  type IncompleteRun,
  type JournalRecord,
  type Lease,
  MAX_JOURNAL_RECORD_CHARS,
  MAX_RUN_ID_CHARS,
  type RunJournal,
  type StoredRun,
} from "../codemode/durable/run-journal.js";
export type { JournalOptions } from "../codemode/options.js";
export type { OutcomeDecision, RecoverOptions } from "../codemode/recover-run.js";
export { DEFAULT_LEASE_MS } from "../codemode/resolve-options.js";
