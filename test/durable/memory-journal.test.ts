/** The memory journal store keeps every rule of a RunJournal. */

import { memoryJournal } from "../../src/codemode/durable/memory-journal.js";
import { describeJournalStore } from "./journal-store-suite.js";

const journal = memoryJournal();
describeJournalStore("memory", { open: () => journal, close: async () => {} });
