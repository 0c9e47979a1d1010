/**
 * The `--approve` choices of `cordon run`: the policies it shares with `cordon mcp` (ask, all, none),
 * and `pause`, which ends the run at the first call that needs a person and saves it to the
 * `--checkpoint` file for `cordon resume`.
 */

import { APPROVE_POLICIES, type ApprovePolicy } from "../mcp/approve-policy.js";

/** What `cordon run --approve` accepts. */
export type RunApproveChoice = ApprovePolicy | "pause";

/** The `--approve` choices of `cordon run`, in the order the help lists them; the first is the default. */
export const RUN_APPROVE_CHOICES: readonly RunApproveChoice[] = [...APPROVE_POLICIES, "pause"];
