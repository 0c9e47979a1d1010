/** The error a failed `tools.*` call rejects with, and the sandbox's global `ToolCallError`. */

import { ErrorCtor } from "./intrinsics.js";
import { defineOwn } from "./objects.js";

/** A failed `tools.*` call: the real tool name, a kind (`denied`, `invalid_arguments`, ...) and a message. */
export class ToolCallError extends ErrorCtor {
  // `declare`: no class-field code is emitted, so no compiler helper can end up in the guest source.
  declare tool: string;
  declare kind: string;
  constructor(tool: string, kind: string, message: string) {
    super(message);
    // Defined, not assigned: assigning would run a setter the code put on Error.prototype.
    defineOwn(this, "name", "ToolCallError");
    defineOwn(this, "tool", tool);
    defineOwn(this, "kind", kind);
  }
}
