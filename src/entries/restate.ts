/**
 * `cordon/restate`: code mode's runs inside Restate handlers, as durable as the invocation.
 * `restateRunCode(ctx, cm, code)` journals every call as a step of the invocation and waits for people
 * on awakeables (docs/durability.md). Needs `@restatedev/restate-sdk` (an optional peer).
 */

export { type RestatePendingCall, type RestateRunOptions, restateRunCode } from "../durable/restate.js";
