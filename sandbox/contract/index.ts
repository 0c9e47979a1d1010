/**
 * The one door to the sandbox contract: what code mode and every environment driver import to talk to a
 * sandbox, in process or over the wire.
 *
 * - `environment.ts`: the `Environment`/`Sandbox` interfaces and the plain data that crosses them.
 * - `failures.ts`: a run the sandbox or its environment ended, by the name that decides its status.
 * - `protocol.ts`: the same contract as JSON lines, for sandbox hosts in other processes or on other hosts.
 * - `discovery.ts`: the names and caps of `tools.$search` / `tools.$describe`, which use the call channel.
 * - `bridge-call.ts` and `deadline.ts`: a run's tool call, with its clock stopped while a person decides.
 */

export { type CallingRun, callFailure, callThroughBridge, type PausableClock } from "./bridge-call.js";
export { PausableDeadline } from "./deadline.js";
export {
  DEFAULT_SEARCH_LIMIT,
  DESCRIBE_CALL,
  DISCOVERY_CALLS,
  isDiscoveryCall,
  MAX_DISCOVERY_CALLS,
  MAX_DISCOVERY_QUERY_CHARS,
  MAX_SEARCH_LIMIT,
  SEARCH_CALL,
} from "./discovery.js";
export {
  type BridgeCallOutcome,
  clampLimits,
  DEFAULT_MAX_ARGS_CHARS,
  DEFAULT_MAX_TOOL_CALLS,
  type Environment,
  type ExecutionOutcome,
  type ExecutionRequest,
  type LogEntry,
  loweredLimits,
  MAX_ERROR_MESSAGE_CHARS,
  MAX_ERROR_NAME_CHARS,
  MAX_RECORDED_VALUES,
  MAX_STACK_FRAMES,
  maxRequestMessages,
  type OpenOptions,
  type RecordedValues,
  type RecordedZone,
  type ReplayedCalls,
  recordedZone,
  type Sandbox,
  type SandboxBridge,
  type SandboxError,
  type SandboxLimits,
} from "./environment.js";
export { isRunFailureName, type RunFailureName, runEnding } from "./failures.js";
export {
  type Command,
  encodeMessage,
  type HostHealth,
  LANE_FD,
  LineSplitter,
  MAX_MESSAGE_BYTES,
  PROTOCOL_VERSION,
  parseCommand,
  parseReport,
  type Report,
} from "./protocol.js";
