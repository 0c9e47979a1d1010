// The public surface of cordon. Everything a user imports comes from here, and only from here.

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
export { type AskHumanArgs, type AskHumanOptions, askHuman } from "./builtins/ask-human.js";
export { FENCE_BEGIN, FENCE_END, FENCE_NOTE, fence, neutralize } from "./builtins/fence.js";
export {
  type AskOptions,
  HumanChannel,
  type HumanQuestion,
  type QuestionInput,
  type QuestionOption,
} from "./builtins/human-channel.js";
export { currentDate, now } from "./builtins/time.js";
export { type AddressClass, type AddressKind, classifyAddress } from "./builtins/web-fetch/address.js";
export {
  DEFAULT_CACHE_SIZE,
  DEFAULT_CACHE_TTL_S,
  DEFAULT_FETCH_TIMEOUT_MS,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_REDIRECTS,
  HttpReader,
  type HttpReaderOptions,
} from "./builtins/web-fetch/http-reader.js";
export type { Page, PageImage, PageReader, ReadOptions } from "./builtins/web-fetch/page.js";
export {
  DEFAULT_WEB_FETCH_MAX_CHARS,
  ERROR_PAGE_CHARS,
  type WebFetchArgs,
  type WebFetchOptions,
  type WebFetchResult,
  webFetch,
} from "./builtins/web-fetch/web-fetch.js";
export {
  DEFAULT_SEARCH_TIMEOUT_MS,
  DUCKDUCKGO_URL,
  DuckDuckGoBackend,
  type DuckDuckGoOptions,
  duckDuckGoSearch,
} from "./builtins/web-search/duckduckgo.js";
export { TAVILY_URL, TavilyBackend, type TavilyOptions, tavilySearch } from "./builtins/web-search/tavily.js";
export {
  DEFAULT_SEARCH_RESULTS,
  MAX_SEARCH_RESULTS,
  type SearchOptions,
  type SearchResult,
  type TimeRange,
  type WebSearch,
  type WebSearchArgs,
  type WebSearchOptions,
  type WebSearchResult,
  webSearch,
} from "./builtins/web-search/web-search.js";
export {
  type CodeMode,
  type CodeModeOptions,
  CodeRunFailed,
  type CodeRunOptions,
  DEFAULT_INLINE_BUDGET,
  type DiscoveryMode,
  type DiscoveryOptions,
  type ObserveOptions,
  type PausedToolCall,
  type PauseOptions,
  type ResumeOptions,
  type RunCodeArgs,
  SESSION_REPLACED,
  SESSION_TAMPERED,
  type SessionOptions,
  type TypeCheckOptions,
} from "./codemode/code-mode.js";
export {
  type DeclaredTool,
  READ_ONLY_NOTE,
  sanitizeToolName,
  toolDeclarations,
} from "./codemode/declarations.js";
export {
  type IndexTextDetail,
  MAX_BEST_KNOWN_TOOLS,
  type ToolIndexText,
  type ToolIndexTextOptions,
  toolIndexText,
} from "./codemode/discovery/index-text.js";
export { DECLARATION_CHARS_PER_TOKEN, estimateTokens } from "./codemode/discovery/token-estimate.js";
export { OBSERVED_RETURNS_PREFIX } from "./codemode/discovery/tool-declaration.js";
export {
  createToolIndex,
  DEFAULT_MATCH_LIMIT,
  type IndexedTool,
  MAX_MATCH_LIMIT,
  type ToolIndex,
  type ToolIndexEntry,
  type ToolIndexOptions,
  type ToolMatch,
  type ToolSearchOptions,
} from "./codemode/discovery/tool-index.js";
export { type CodeModeLimits, DEFAULT_CODE_MODE_LIMITS } from "./codemode/limits.js";
export { observesResults } from "./codemode/observed/results.js";
export {
  MAX_OBSERVED_TOOL_NAME_CHARS,
  MAX_OBSERVED_TOOLS,
  OBSERVE_EVERY_NTH_RESULT,
  OBSERVE_FIRST_RESULTS,
  OBSERVED_TYPES_FORMAT,
  OBSERVED_TYPES_VERSION,
  ObservedTypes,
  type ObservedTypesJson,
} from "./codemode/observed/store.js";
export {
  MAX_OBSERVED_ARRAY_SAMPLES,
  MAX_OBSERVED_DEPTH,
  MAX_OBSERVED_KEY_CHARS,
  MAX_OBSERVED_KEYS,
  MAX_OBSERVED_PROPERTIES,
  MAX_OBSERVED_TYPE_CHARS,
  MAX_OBSERVED_UNION,
  MAX_OBSERVED_VALUES,
  mergeObservedTypes,
  type ObservedProperty,
  type ObservedType,
  observe,
  observeValue,
  renderObservedType,
} from "./codemode/observed/types.js";
export {
  CHECKPOINT_VERSION,
  type CheckpointKey,
  type CheckpointProblem,
  CheckpointRefused,
  DEFAULT_CHECKPOINT_TTL_MS,
  MAX_CHECKPOINT_BODY_BYTES,
  MAX_CHECKPOINT_CHARS,
  MIN_CHECKPOINT_KEY_BYTES,
} from "./codemode/pause/checkpoint.js";
export {
  type CheckpointStore,
  CLAIM_KEPT_AFTER_EXPIRY_MS,
  fileCheckpointStore,
  MIN_STORED_VALUE_CHARS,
  memoryCheckpointStore,
} from "./codemode/pause/checkpoint-store.js";
export { MAX_SANDBOX_REPLAY_BYTES } from "./codemode/pause/journal.js";
export type { CheckpointClaims, CheckpointInfo, Decision, ResumeDecisions } from "./codemode/pause/pause.js";
export {
  type CallRecord,
  type CodeRunResult,
  type DiscoveryRecord,
  type PendingCall,
  renderCodeRunResult,
} from "./codemode/result.js";
export { REPLAY_DIVERGED, SESSIONS_DO_NOT_PAUSE } from "./codemode/run.js";
export { CODE_TOO_LONG, MAX_CODE_CHARS } from "./codemode/transpile.js";
export {
  DEFAULT_TYPECHECK_LIMITS,
  DEFAULT_TYPECHECK_MEMORY_MB,
  DEFAULT_TYPECHECK_TIME_MS,
  DEFAULT_TYPECHECK_WORKERS,
  MAX_DIAGNOSTIC_MESSAGE_CHARS,
  MAX_TYPE_DIAGNOSTICS,
  MAX_TYPECHECK_WORKERS,
  MIN_TYPECHECK_MEMORY_MB,
  TYPECHECK_INTERRUPT_GRACE_MS,
} from "./codemode/typecheck/limits.js";
export { TYPE_CHECK_ERROR } from "./codemode/typecheck/render.js";
export type { TypeScriptResolver } from "./codemode/typecheck/resolve-typescript.js";
export type {
  TypeCheckLimits,
  TypeCheckMode,
  TypeDiagnostic,
} from "./codemode/typecheck/types.js";
export { codeMode, defaultEnvironment } from "./defaults.js";
export { DEFAULT_APPROVAL_TIMEOUT_MS, Dispatcher } from "./dispatch/dispatcher.js";
export { type PausedWork, ToolPaused } from "./dispatch/paused-work.js";
export {
  APPROVAL_MARKS_PER_CHAR,
  APPROVAL_NESTED_ITEMS,
  APPROVAL_STRING_CHARS,
  type ApprovalPreviewOptions,
  approvalDetails,
  approvalLines,
  visibleText,
} from "./dispatch/preview.js";
export { renderValue } from "./dispatch/render.js";
export { backoffDelay, MAX_RETRY_DELAY_MS } from "./dispatch/retry.js";
export type { TracerProviderLike, TracingOptions } from "./dispatch/tracing/options.js";
export { DEFAULT_MAX_OUTPUT_CHARS, truncateOutput } from "./dispatch/truncate.js";
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
  buildSandboxImage,
  DOCKER_DEFAULTS,
  type DockerConnection,
  type DockerEngineOptions,
  type DockerEngineStatus,
  type DockerEnvironment,
  type DockerEnvironmentOptions,
  dockerEnvironment,
  IMAGE_BUILD_COMMAND,
  type ImageBuildOptions,
  type IsolatedVmModule,
  type IsolateEnvironment,
  type IsolateEnvironmentOptions,
  type IsolateSandboxHandle,
  isolateEnvironment,
  REMOTE_ISOLATION,
  type RemoteEnvironmentOptions,
  remoteEnvironment,
  SANDBOX_HOST_DEFAULTS,
  SANDBOX_IMAGE,
  SANDBOX_PATH,
  type SandboxHostEnvironmentOptions,
  type SandboxServer,
  type SandboxServerOptions,
  type SpinMode,
  sandboxHostEnvironment,
  serveSandboxes,
} from "./drivers.js";
export {
  type AnsweredCalls,
  finalResults,
  type RunToolCallsOptions,
  runToolCalls,
  type ToolSource,
} from "./providers/run-tool-calls.js";
export {
  MAX_ARGUMENT_CHARS,
  MAX_ARGUMENT_DEPTH,
  type ParsedArguments,
  parseArguments,
} from "./tools/arguments.js";
export { Budget, type BudgetLimits } from "./tools/budget.js";
export {
  type CommandCall,
  commandUsage,
  DEFAULT_COMMAND_PREFIX,
  type ParseCommandOptions,
} from "./tools/command.js";
export type { SchemaInput } from "./tools/schema.js";
export {
  defineTool,
  type InferArgs,
  isTool,
  TOOL_NAME_PATTERN,
  type ToolConfig,
  tool,
} from "./tools/tool.js";
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
