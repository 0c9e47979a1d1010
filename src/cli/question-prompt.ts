/**
 * A question a tool asks the person (`ask_human`, or any `waitsForHuman` tool), asked on the terminal
 * for `cordon resume`: the question, its suggested answers numbered, then `Answer:`. A number picks a
 * suggestion (several, separated by commas, when it allows several); anything else is the answer in the
 * person's own words. The text came from the model's code: every character that could hide or repaint
 * a line is written out.
 */

import type { Interface } from "node:readline/promises";
import { approvalLines, visibleText } from "../dispatch/preview.js";
import type { Style } from "./style.js";

/** One question to ask. */
export interface QuestionRequest {
  toolName: string;
  /** The call's arguments: `question`, optional `options` (`{ label, description? }[]`) and `multi_select`. */
  args: unknown;
  /** Withdraws the question. */
  signal: AbortSignal;
  /** Shown before the question, e.g. the pending call's id. */
  label?: string;
}

/** A suggested answer. */
interface Choice {
  label: string;
  description?: string;
}

/**
 * Asks the question on `prompt`; resolves with the answer (never empty: an empty line asks again), or
 * undefined when the question was withdrawn.
 */
export async function askQuestion(
  prompt: Interface,
  io: { stderr: NodeJS.WriteStream; style: Style },
  request: QuestionRequest,
): Promise<string | undefined> {
  const { toolName, args, signal, label } = request;
  if (signal.aborted) return undefined;
  const { question, choices, several } = readQuestion(args);
  const tag = label === undefined ? "" : `${io.style.dim(visibleText(label))} `;
  const lines = [`${io.style.yellow("?")} ${tag}${io.style.bold(visibleText(toolName))} asks:`];
  if (question !== undefined) lines.push(indent(visibleText(question, { keepNewlines: true })));
  else lines.push(...approvalLines(args).map((line) => indent(line)));
  choices.forEach((choice, i) => {
    const about = choice.description ? io.style.dim(` — ${visibleText(choice.description)}`) : "";
    lines.push(`    ${i + 1}. ${visibleText(choice.label)}${about}`);
  });
  io.stderr.write(`${lines.join("\n")}\n`);
  const how =
    choices.length === 0
      ? "Answer: "
      : several
        ? `Answer (numbers from 1 to ${choices.length}, separated by commas, or your own words): `
        : `Answer (a number from 1 to ${choices.length}, or your own words): `;
  try {
    for (;;) {
      const typed = (await prompt.question(`  ${how}`, { signal })).trim();
      if (typed !== "") return picked(typed, choices, several) ?? typed;
      io.stderr.write(`  ${io.style.dim("Type an answer (Ctrl-C stops without answering).")}\n`);
    }
  } catch {
    return undefined;
  }
}

/** The labels a typed answer picks by number (one per line), or undefined when it is not numbers. */
function picked(typed: string, choices: readonly Choice[], several: boolean): string | undefined {
  if (choices.length === 0) return undefined;
  const parts = several ? typed.split(/\s*,\s*/) : [typed];
  if (!parts.every((part) => /^\d+$/.test(part))) return undefined;
  const numbers = parts.map(Number);
  if (!numbers.every((n) => n >= 1 && n <= choices.length)) return undefined;
  return [...new Set(numbers)].map((n) => choices[n - 1]!.label).join("\n");
}

/** The question, its suggested answers and whether several may be chosen, as far as `args` has them. */
function readQuestion(args: unknown): { question?: string; choices: Choice[]; several: boolean } {
  if (args === null || typeof args !== "object") return { choices: [], several: false };
  const { question, options, multi_select } = args as Record<string, unknown>;
  const choices = Array.isArray(options)
    ? options.flatMap((option): Choice[] => {
        const { label, description } = (option ?? {}) as Record<string, unknown>;
        if (typeof label !== "string") return [];
        return [typeof description === "string" ? { label, description } : { label }];
      })
    : [];
  return {
    ...(typeof question === "string" ? { question } : {}),
    choices,
    several: multi_select === true,
  };
}

function indent(text: string): string {
  return `    ${text.replace(/\n/g, "\n    ")}`;
}
