/**
 * What watches a lane's stretches of code from another thread (see `ExecutionDeps.lane`): the thread a
 * stretch holds cannot run its own timers, nor notice that V8 ignores isolated-vm's stop.
 */
export interface StretchWatch {
  /** A run starts, with these limits (what it is told when it passes one comes from them). */
  run(limits: { cpuTimeMs: number; timeoutMs: number; memoryMb: number }): void;
  /**
   * A stretch starts; isolated-vm stops it after `budgetMs`, what is left of the run's `limit` (its CPU
   * time or its wall clock).
   */
  begin(limit: "cpu" | "wall", budgetMs: number): void;
  /** The stretch returned. */
  end(): void;
}
