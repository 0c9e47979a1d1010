/**
 * The MCP SDK is an optional peer dependency: cordon's library and `cordon run` never load it, and
 * `npm install cordon` does not bring it (nor the ~90 packages it depends on). Only the MCP server and
 * its upstream clients use it, so they check for it first and say how to install it.
 */

import { createRequire } from "node:module";
import { UserError } from "../../common/errors.js";

/** The MCP SDK's package name. */
export const MCP_SDK_PACKAGE = "@modelcontextprotocol/sdk";

/** The versions of the MCP SDK cordon is tested with: its peer dependency range in package.json. */
export const MCP_SDK_RANGE = "^1.32.2";

/** Whether the MCP SDK can be loaded from here (one module of it is resolved, none is loaded). */
function mcpSdkInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve(`${MCP_SDK_PACKAGE}/server/index.js`);
    return true;
  } catch {
    return false;
  }
}

/** Throws a {@link UserError} that says how to install the MCP SDK when it is missing; `what` needs it. */
export function requireMcpSdk(what: string): void {
  if (mcpSdkInstalled()) return;
  throw new UserError(
    `${what} needs the MCP SDK, an optional peer dependency that is not installed: install it with \`npm install ${MCP_SDK_PACKAGE}@"${MCP_SDK_RANGE}"\`.`,
  );
}
