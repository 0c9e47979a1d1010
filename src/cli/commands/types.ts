/**
 * `cordon types --tools <module>`: the declarations and the instructions a model gets for the tools;
 * with `--observed-types <file>`, with the result types learnt by earlier runs.
 */

import { type CodeMode, createCodeMode } from "../../codemode/code-mode.js";
import { renderObservedType } from "../../codemode/observed/types.js";
import type { AnyTool } from "../../tools/types.js";
import { EXIT } from "../cli-error.js";
import {
  flagOption,
  integerOption,
  type ParsedCommand,
  requiredOption,
  stringOption,
} from "../command-spec.js";
import { createEnvironment } from "../env-choices.js";
import { loadToolsShowingProgress } from "../load-tools.js";
import { readObservedTypesFile } from "../observed-types-file.js";
import { progressOn } from "../progress.js";
import { styleFor } from "../style.js";
import { MAX_TIMEOUT_MS } from "./run.js";

/** Runs the command; resolves with the exit code. */
export async function run(input: ParsedCommand): Promise<number> {
  const toolsPath = requiredOption(input, "tools", "the module whose tools to declare");
  const json = flagOption(input, "json");
  const timeoutMs = integerOption(input, "timeout", { min: 1, max: MAX_TIMEOUT_MS });
  const observedFile = stringOption(input, "observed-types") || undefined;
  const progress = progressOn(process.stderr);
  const observedTypes =
    observedFile === undefined ? undefined : (await readObservedTypesFile(observedFile, "error")).store;
  const tools = await loadToolsShowingProgress(toolsPath, progress);
  // The environment is part of what the model is told (how isolated its code is); no sandbox is started.
  const environment = await createEnvironment(stringOption(input, "env"), {
    oneShot: true,
    env: process.env,
  });
  const cm = createCodeMode({
    tools,
    environment,
    ...(timeoutMs === undefined ? {} : { limits: { timeoutMs } }),
    ...(observedTypes === undefined ? {} : { observe: { store: observedTypes } }),
  });
  try {
    if (json) {
      const shown = {
        tool: { name: cm.tool.name, description: cm.tool.description, parameters: cm.tool.parameters },
        declarations: cm.declarations,
        instructions: cm.instructions,
        ...(observedTypes === undefined ? {} : { observed: observedOf(cm, tools) }),
      };
      process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    } else {
      const style = styleFor(process.stdout);
      process.stdout.write(
        `${style.dim("// declarations: the `tools` object the model's code calls")}\n${cm.declarations}\n\n` +
          `${style.dim("// instructions: the text for the model's system prompt")}\n${cm.instructions}`,
      );
    }
    return EXIT.ok;
  } finally {
    await cm.close();
  }
}

/** The observed result type of each tool that has one, rendered as the declarations show it. */
function observedOf(cm: CodeMode, tools: readonly AnyTool[]): Record<string, string> {
  return Object.fromEntries(
    tools.flatMap(({ name }) => {
      const type = cm.observedTypeOf(name);
      return type === undefined ? [] : [[name, renderObservedType(type)]];
    }),
  );
}
