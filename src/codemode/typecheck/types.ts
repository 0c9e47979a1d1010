/**
 * What the type check of the model's code gives back, the modes it runs in, and the messages between the
 * agent's thread and the checker's worker thread.
 */

/** How code mode meets TypeScript errors in the model's code. */
export type TypeCheckMode = "block" | "report" | "off";

/** The typecheck modes, in the order they are listed to people. */
export const TYPECHECK_MODES: readonly TypeCheckMode[] = ["block", "report", "off"];

/** One TypeScript error in the model's code. */
export interface TypeDiagnostic {
  /** 1-based line in the model's code (with a markdown fence, line 1 is the first line inside it). */
  line: number;
  /** 1-based column (UTF-16 units, as editors and V8 count). */
  column: number;
  /** TypeScript's message, its chain flattened into one text. */
  message: string;
  /** TypeScript's error code (`2551` for "Property 'x' does not exist ... Did you mean 'y'?"). */
  code: number;
  /** The replacement TypeScript suggests for the text at this position, when it has one (`"amount"`). */
  fix?: string;
}

/** A name the code calls a tool by that the dispatcher's name repair resolves: it works, and says so. */
export interface RepairedToolName {
  /** The name in the code: `getOrder` in `tools.getOrder(...)`. */
  requested: string;
  /** The real name of the tool it reaches: `get_order`. */
  tool: string;
}

/** The names the model's code declared at its top level: what a session keeps for the next run. */
export interface DeclaredNames {
  /** Variables, functions, classes and enums: values at run time. */
  values: string[];
  /** Type aliases, interfaces, classes and enums: names of types. */
  types: string[];
}

/** How one check of the model's code ended. */
export type TypeCheckOutcome =
  | {
      status: "checked";
      /** At most MAX_TYPE_DIAGNOSTICS of them, in the order of the code. */
      diagnostics: TypeDiagnostic[];
      /** How many errors TypeScript found in all (more than `diagnostics.length` when some were left out). */
      errorCount: number;
      repaired: RepairedToolName[];
      declared: DeclaredNames;
    }
  /** The check did not finish: over its time budget or its memory cap, or the checker failed. */
  | { status: "unchecked"; reason: "time" | "memory" | "failed"; message: string };

/** The limits of one check. */
export interface TypeCheckLimits {
  /** How long one check may take, in ms, before it is cut off. */
  timeMs: number;
  /** The checker's heap, in MB (the worker's old generation); a check that needs more is cut off. */
  memoryMb: number;
}

/** What the worker is started with. */
export interface CheckerWorkerData {
  /** The file of the `typescript` package's main module. */
  typescriptPath: string;
  /** The TypeScript declarations of `tools` as the checker reads them (`interface Tools` and `tools`). */
  declarations: string;
  /** The identifiers the declarations give the tools (`tools.<identifier>`). */
  toolIdentifiers: string[];
  /** A check's time budget, in ms: past it the thread interrupts the check. */
  timeMs: number;
}

/** A check the agent's thread asks the worker for. */
export interface CheckRequest {
  id: number;
  /** The model's code as prepared for the run: fence taken out, line breaks normalized. */
  code: string;
  /** Names the code reaches tools by besides the declared ones: `[name, declared identifier]`. */
  aliases: [string, string][];
  /** Names earlier runs of the session left, declared for this one. */
  session: DeclaredNames;
}

/** The worker's answers: ready once warm, then one reply per request. */
export type WorkerReply =
  | { type: "ready" }
  | { type: "startFailed"; message: string }
  | {
      type: "checked";
      id: number;
      diagnostics: TypeDiagnostic[];
      errorCount: number;
      declared: DeclaredNames;
    }
  | { type: "failed"; id: number; message: string }
  /** The check ran past its budget and was interrupted; `sound`: the compiler answered the canary right. */
  | { type: "interrupted"; id: number; sound: boolean };
