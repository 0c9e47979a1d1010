/**
 * How the isolate engine is told about memory its heap limit cannot see: a watch outside the heap (the
 * sandbox-host program's process peak, `sandbox/program/peak-memory.ts`) that each run reports to.
 */

/** What a {@link RunMemoryWatch} found: memory rose by `roseMb` over a run allowed `allowedMb`. */
interface MemoryOverrun {
  roseMb: number;
  allowedMb: number;
}

/** A run being watched: asked once as the run would end, then told it ended. */
export interface RunMemoryWatching {
  /** The overrun when the run used more memory than its heap limit allows, else undefined. */
  passed(): MemoryOverrun | undefined;
  /**
   * The run exchanged messages of this many characters with the host (tool calls and their outcomes,
   * console lines, the result): the host keeps them in the same process until it collects them.
   */
  crossed(chars: number): void;
  /** The run ended (safe to call twice). */
  end(): void;
}

/** Watches each run's memory from outside its heap (the isolate engine's `memory` option). */
export interface RunMemoryWatch {
  /** A run with this heap limit starts. */
  begin(memoryMb: number): RunMemoryWatching;
}
