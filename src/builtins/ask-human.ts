/**
 * The ask_human tool: the model asks the operator a question and waits for the answer, through a
 * {@link HumanChannel}.
 */
import { z } from "zod";
import { UserError } from "../../common/errors.js";
import { formatDuration } from "../dispatch/failures.js";
import { tool } from "../tools/tool.js";
import type { Tool } from "../tools/types.js";
import type { HumanChannel } from "./human-channel.js";

/** Suggested answers a question may carry. */
const MIN_OPTIONS = 2;
/** Suggested answers a question may carry at most. */
const MAX_OPTIONS = 4;

/** Options of {@link askHuman}. */
export interface AskHumanOptions {
  /** Milliseconds to wait for an answer before the call fails (the question is withdrawn). Default: no limit. */
  timeout?: number;
  /** The tool's name. Default `ask_human`. */
  name?: string;
}

/** The arguments the model sends. */
export interface AskHumanArgs {
  question: string;
  options?: { label: string; description?: string | undefined }[] | undefined;
  multi_select: boolean;
}

/**
 * One line of visible text: no line breaks of any kind (\r, \n, U+0085, U+2028, U+2029), no other
 * control characters, and no bidirectional controls, which could make a label read as another.
 */
const singleLine = (value: string) => !/[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/u.test(value);

const optionSchema = z.object({
  label: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .refine(
      singleLine,
      "must be a single line of visible text (no line breaks, control or bidirectional characters)",
    )
    .describe("The answer choice, short and on one line"),
  description: z
    .string()
    .max(300)
    .refine(
      singleLine,
      "must be a single line of visible text (no line breaks, control or bidirectional characters)",
    )
    .optional()
    .describe("One line saying what this choice means"),
});

/**
 * The ask_human tool over `channel`. Parameters: `question`, optional `options` (2–4 suggestions, each a
 * unique one-line `label` and an optional one-line `description`) and `multi_select`. Options are
 * suggestions: any text is a valid answer; a multi-select answer is the chosen labels, one per line.
 *
 * It is a barrier (`parallel: false`) and never retried. The call waits until an answer, a cancel, the
 * channel's close, the dispatch's cancellation or `timeout`. It `waitsForHuman`: called from run_code,
 * the wait does not count against the run's wall clock (for at most `timeout`, or the dispatcher's
 * `approvalTimeoutMs` without one).
 */
export function askHuman(channel: HumanChannel, options: AskHumanOptions = {}): Tool<AskHumanArgs, string> {
  if (channel === null || typeof channel !== "object" || typeof channel.ask !== "function") {
    throw new UserError("askHuman(channel) needs a HumanChannel: askHuman(new HumanChannel()).");
  }
  const wait =
    options.timeout === undefined
      ? "It waits until the person answers."
      : `If nobody answers within ${formatDuration(options.timeout)}, the call fails and you should go on without the answer.`;
  return tool({
    name: options.name ?? "ask_human",
    description:
      "Ask the human operator a question and wait for the answer. Use it for information or a decision only a person can give, not for permission to run a tool. " +
      `For a choice, give ${MIN_OPTIONS} to ${MAX_OPTIONS} options; they are suggestions, and the person may answer in their own words. ` +
      `With multi_select the answer is the chosen labels, one per line. ${wait}`,
    input: z
      .object({
        question: z.string().trim().min(1).max(4_000).describe("The question; say what you need and why"),
        options: z
          .array(optionSchema)
          .min(MIN_OPTIONS)
          .max(MAX_OPTIONS)
          .optional()
          .describe(`${MIN_OPTIONS} to ${MAX_OPTIONS} suggested answers with unique labels`),
        multi_select: z
          .boolean()
          .default(false)
          .describe("Let the person choose several options; the answer lists their labels, one per line"),
      })
      .superRefine((args, ctx) => {
        const seen = new Set<string>();
        args.options?.forEach((option, i) => {
          if (seen.has(option.label)) {
            ctx.addIssue({
              code: "custom",
              path: ["options", i, "label"],
              message: `repeats the label "${option.label}"; labels must be unique`,
            });
          }
          seen.add(option.label);
        });
        if (args.multi_select && !args.options) {
          ctx.addIssue({ code: "custom", path: ["multi_select"], message: "needs options to choose from" });
        }
      }),
    output: z.string(),
    parallel: false,
    retries: 0,
    readOnly: true,
    // From run_code, the person's time to answer does not count against the run's wall clock.
    waitsForHuman: true,
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    render: (answer) => (answer === "" ? "(The person answered with an empty message.)" : String(answer)),
    run: ({ question, options: choices, multi_select }, ctx) =>
      channel.ask(
        {
          question,
          ...(choices
            ? {
                options: choices.map((c) =>
                  c.description ? { label: c.label, description: c.description } : { label: c.label },
                ),
              }
            : {}),
          multiSelect: multi_select,
        },
        {
          signal: ctx.signal,
          runId: ctx.runId,
          callId: ctx.callId,
          ...(ctx.session ? { sessionId: ctx.session.id } : {}),
        },
      ),
  });
}
