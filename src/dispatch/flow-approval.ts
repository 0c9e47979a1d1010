/**
 * What a person deciding on a call is told when a flow policy (code mode's `flows`) sent it to them:
 * why, and which arguments hold data from a labelled result. Plain JSON: it travels in checkpoints.
 */

/**
 * An argument of a call that holds data from a labelled result (code mode's `flows`): what a person
 * deciding on the call is shown beside it, e.g. "body contains text from web_fetch #3".
 */
export interface ArgumentMark {
  /** The argument's path: `body`, `to[0]`, `message.text`. */
  path: string;
  /** The top-level argument the path is in (`body`, `to`, `message`); absent when the arguments are not an object. */
  argument?: string;
  /** `text`: it contains a long enough piece of the result's text; `value`: it equals a value there. */
  holds: "text" | "value";
  /** The call the data came from: `web_fetch #3` (its tool and its number in the run). */
  from: string;
  /** The label of that call's results that the flow policy is about. */
  label: string;
}

/**
 * Why a call asks a person although its tool would not: a flow policy (code mode's `flows`) covers it,
 * as the run received labelled data earlier. `marks` name the arguments holding that data.
 */
export interface FlowApproval {
  /** One sentence a person reads: which label, from which call, and which policy. */
  reason: string;
  marks: ArgumentMark[];
}
