/** The file journal store keeps every rule of a RunJournal, across handles, processes and crashes. */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileJournal } from "../../src/codemode/durable/file-journal.js";
import { describeJournalStore } from "./journal-store-suite.js";

const directory = mkdtempSync(join(tmpdir(), "cordon-file-journal-"));
describeJournalStore("file", {
  open: () => fileJournal(join(directory, "runs")),
  close: async () => rmSync(directory, { recursive: true, force: true }),
});
