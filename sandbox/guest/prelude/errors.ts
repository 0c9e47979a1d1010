/** Turns anything the model's code threw into the plain data the host receives, within caps. */

import { MAX_ERROR_MESSAGE_CHARS, MAX_ERROR_NAME_CHARS, MAX_STACK_FRAMES } from "../../contract/index.js";
import { type GuestDoneReport, USER_CODE_FILENAME } from "../interface.js";
import { unavailable } from "./blocked.js";
import { formatValue } from "./format.js";
import { apply, ErrorCtor, mapGet, regExpExec, stringIndexOf } from "./intrinsics.js";
import { bare, cut, isInstance, join, push, readField, slice, toText } from "./objects.js";
import { explainMissingName, explainMissingTool, toolList } from "./suggestions.js";
import { ToolCallError } from "./tool-call-error.js";

/** The frames of a stack that are in the model's code (at most MAX_STACK_FRAMES); the rest are dropped. */
const userFrames = (stack: string): string[] => {
  const frames: string[] = [];
  const text = cut(stack, MAX_ERROR_MESSAGE_CHARS);
  // Split by hand: split() would look its separator's Symbol.split up on String.prototype.
  for (let from = 0; from <= text.length && frames.length < MAX_STACK_FRAMES; ) {
    let end = apply(stringIndexOf, text, ["\n", from]) as number;
    if (end === -1) end = text.length;
    const line = slice(text, from, end);
    from = end + 1;
    if (apply(regExpExec, /^[ \t]+at /, [line]) === null) continue;
    if (apply(stringIndexOf, line, [`${USER_CODE_FILENAME}:`]) !== -1) push(frames, slice(line, 0, 500));
  }
  return frames;
};

/** Turns anything thrown by the model's code into the plain data the host receives, within caps. */
export const describeError = (thrown: unknown): NonNullable<GuestDoneReport["error"]> => {
  try {
    const isObject = (typeof thrown === "object" && thrown !== null) || typeof thrown === "function";
    const source = thrown as Record<string, unknown>;
    // Read in order, with no catch per field: a value whose getters throw is unreadable as a whole.
    const rawName = isObject ? source.name : undefined;
    let name = typeof rawName === "string" && rawName !== "" ? cut(rawName, MAX_ERROR_NAME_CHARS) : "Error";
    const rawMessage = isObject ? source.message : undefined;
    let message = cut(isObject ? toText(rawMessage ?? "") : toText(thrown), MAX_ERROR_MESSAGE_CHARS);
    if (!isObject) name = "Error";
    else if (typeof rawMessage !== "string" && !isInstance(thrown, ErrorCtor)) {
      // An object or function that is no Error and says nothing itself: show what it is.
      message = cut(
        `the code threw a value that is not an Error: ${formatValue(thrown, 0, [], MAX_ERROR_MESSAGE_CHARS)}. Throw new Error("...") to give a message.`,
        MAX_ERROR_MESSAGE_CHARS,
      );
    }
    const rawStack = isObject ? source.stack : undefined;
    const frames = typeof rawStack === "string" ? userFrames(rawStack) : [];
    // V8 says `x is not defined`, QuickJS `'x' is not defined`.
    const missing = apply(regExpExec, /^'?([^\s']+)'? is not defined$/, [message]) as string[] | null;
    const missingTool = apply(regExpExec, /^tools\.(\S+) is not a function$/, [message]) as string[] | null;
    if (name === "ReferenceError" && missing !== null) {
      const known = apply(mapGet, unavailable, [missing[1]]) as string | undefined;
      message = known !== undefined ? `${missing[1]} ${known}${toolList()}` : explainMissingName(missing[1]);
    } else if (name === "TypeError" && missingTool !== null) {
      message = explainMissingTool(missingTool[1]);
    }
    const header: string[] = [`${name}: ${message}`];
    for (let i = 0; i < frames.length; i++) push(header, frames[i]);
    const error: NonNullable<GuestDoneReport["error"]> = bare({ name, message, stack: join(header, "\n") });
    if (isInstance(thrown, ToolCallError)) {
      error.tool = toText(readField(source, "tool"));
      error.kind = toText(readField(source, "kind"));
    }
    return error;
  } catch {
    return bare({ name: "Error", message: "The code threw a value that could not be read." });
  }
};
