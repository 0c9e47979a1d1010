/** The `--approve` policies shared by `cordon run` and `cordon mcp`, and `cordon mcp`'s own. */

/**
 * How gated calls are decided: `ask` a person (on the terminal, or through the MCP client's elicitation)
 * and deny when nobody can be asked; `all` allows every gated call; `none` denies every one.
 */
export type ApprovePolicy = "ask" | "all" | "none";

/** The approval policies, in the order the help lists them. */
export const APPROVE_POLICIES: readonly ApprovePolicy[] = ["ask", "all", "none"];

/**
 * `cordon mcp`'s policies: the shared ones, and `web`, which decides every gated call on an approval
 * page cordon serves on its own HTTP port (so only with `--http`).
 */
export type McpApprovePolicy = ApprovePolicy | "web";

/** `cordon mcp`'s approval policies, in the order the help lists them. */
export const MCP_APPROVE_POLICIES: readonly McpApprovePolicy[] = [...APPROVE_POLICIES, "web"];
