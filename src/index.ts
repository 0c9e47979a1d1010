// The root entry of cordon, `import ... from "cordon"`: what a user of the library needs to define
// tools, dispatch a model's calls, and run the model's code (code mode, its results, pausing, and the
// default environment it runs in). The rest has entries that say what it is for: cordon/builtins,
// cordon/discovery, cordon/in-process, cordon/docker, cordon/remote, cordon/openai, cordon/anthropic,
// cordon/ai-sdk and cordon/testing (src/entries/, src/providers/). test/exports.test.ts holds each list.

export {
  type ArgumentIssue,
  BudgetExceeded,
  InvalidToolArguments,
  RunCancelled,
  ToolError,
  UsageError,
  UserError,
} from "../common/errors.js";
export type {
  CallRecordStatus,
  CodeModeErrorName,
  RunStatus,
  ToolCallErrorKind,
} from "../common/failures.js";
export type {
  BridgeCallOutcome,
  Environment,
  ExecutionOutcome,
  ExecutionRequest,
  LogEntry,
  RunFailureName,
  Sandbox,
  SandboxBridge,
  SandboxError,
  SandboxLimits,
} from "../sandbox/contract/index.js";
export {
  type CodeMode,
  type CodeModeOptions,
  CodeRunFailed,
  type CodeRunOptions,
  type DiscoveryMode,
  type DiscoveryOptions,
  type ObserveOptions,
  type PausedToolCall,
  type PauseOptions,
  type ResumeOptions,
  type RunCodeArgs,
  type SessionOptions,
  type TypeCheckOptions,
} from "./codemode/code-mode.js";
export { type CodeModeLimits, DEFAULT_CODE_MODE_LIMITS } from "./codemode/limits.js";
export { ObservedTypes, type ObservedTypesJson } from "./codemode/observed/store.js";
export {
  type CheckpointKey,
  type CheckpointProblem,
  CheckpointRefused,
} from "./codemode/pause/checkpoint.js";
export {
  type CheckpointStore,
  fileCheckpointStore,
  memoryCheckpointStore,
} from "./codemode/pause/checkpoint-store.js";
export type { CheckpointClaims, CheckpointInfo, Decision, ResumeDecisions } from "./codemode/pause/pause.js";
export {
  type CallRecord,
  type CodeRunResult,
  type DiscoveryRecord,
  type PendingCall,
  renderCodeRunResult,
} from "./codemode/result.js";
export { DEFAULT_TYPECHECK_LIMITS } from "./codemode/typecheck/limits.js";
export type { TypeScriptResolver } from "./codemode/typecheck/resolve-typescript.js";
export type {
  TypeCheckLimits,
  TypeCheckMode,
  TypeDiagnostic,
} from "./codemode/typecheck/types.js";
export {
  codeMode,
  defaultEnvironment,
  SANDBOX_HOST_DEFAULTS,
  type SandboxHostEnvironmentOptions,
  sandboxHostEnvironment,
} from "./defaults.js";
export { Dispatcher } from "./dispatch/dispatcher.js";
export type { PausedWork } from "./dispatch/paused-work.js";
export { type ApprovalPreviewOptions, approvalDetails, approvalLines } from "./dispatch/preview.js";
export { renderValue } from "./dispatch/render.js";
export type { TracerProviderLike, TracingOptions } from "./dispatch/tracing/options.js";
export type {
  ApprovalAnswer,
  ApprovalHandler,
  Approvals,
  CallFailure,
  DispatchEvent,
  DispatcherOptions,
  DispatchHandle,
  DispatchOptions,
  DispatchOutcome,
  DispatchRun,
  FailureKind,
  OpenRunOptions,
  PersonPolicy,
  ResultObserver,
  RunCallOptions,
  RunCallOutcome,
  RunSummary,
  ToolCall,
  ToolResult,
} from "./dispatch/types.js";
export {
  type AnsweredCalls,
  finalResults,
  type RunToolCallsOptions,
  runToolCalls,
  type ToolSource,
} from "./providers/run-tool-calls.js";
export { Budget, type BudgetLimits } from "./tools/budget.js";
export type { CommandCall, ParseCommandOptions } from "./tools/command.js";
export type { SchemaInput } from "./tools/schema.js";
export { defineTool, type InferArgs, isTool, type ToolConfig, tool } from "./tools/tool.js";
export { type AnthropicTool, type OpenAITool, type ToolDefinition, Toolset } from "./tools/toolset.js";
export type {
  AnyTool,
  JsonSchema,
  NeedsApproval,
  RunContext,
  Session,
  Tool,
  ToolInvoke,
  ToolOptions,
  ToolPolicy,
  ToolRenderer,
  ValidationResult,
} from "./tools/types.js";
