/**
 * How the `cordon` command ends. The command used wrongly (a bad flag, a missing file, a tools module that
 * does not load) throws a `UsageError` (common/errors.ts): its message and the command's help hint are
 * printed, and the command exits with `EXIT.usage`.
 */

/** The exit codes of the `cordon` command. */
export const EXIT = Object.freeze({
  /** The command did what was asked (for `run`: the code's run ended `ok`). */
  ok: 0,
  /**
   * The code failed: its run ended with an error, a timeout, a limit or a cancellation; or (`cordon
   * resume`) its checkpoint was refused, and nothing ran.
   */
  codeFailed: 1,
  /** The command was used wrongly: the message says what to change. */
  usage: 2,
  /**
   * The run paused (`cordon run --approve pause`, `cordon resume`): calls wait for a person. Its
   * checkpoint is in the --checkpoint file, and `cordon resume <file>` goes on once they have decided.
   */
  paused: 3,
  /** Interrupted with Ctrl-C (128 + SIGINT). */
  interrupted: 130,
});
