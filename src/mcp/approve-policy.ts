/** The `--approve` policies shared by `cordon run` and `cordon mcp`. */

/**
 * How gated calls are decided: `ask` a person (on the terminal, or through the MCP client's elicitation)
 * and deny when nobody can be asked; `all` allows every gated call; `none` denies every one.
 */
export type ApprovePolicy = "ask" | "all" | "none";

/** The approval policies, in the order the help lists them. */
export const APPROVE_POLICIES: readonly ApprovePolicy[] = ["ask", "all", "none"];
