/**
 * The `cordon` command: finds the command in the table, parses its options, runs it, and turns what
 * went wrong into a message and an exit code (2 for usage errors).
 */

import { parseArgs } from "node:util";
import { messageOf, UsageError, UserError } from "../../common/errors.js";
import { cordonVersion } from "../../common/version.js";
import { EXIT } from "./cli-error.js";
import type { CommandSpec, ParsedCommand } from "./command-spec.js";
import { COMMANDS, findCommand } from "./commands.js";
import { commandHelp, globalHelp } from "./help.js";
import { styleFor } from "./style.js";

/** Runs `cordon` with `argv` (the words after `cordon`); resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const out = styleFor(process.stdout);
  const err = styleFor(process.stderr);
  const first = argv[0];
  if (first === undefined) {
    process.stderr.write(globalHelp(err, cordonVersion()));
    return EXIT.usage;
  }
  if (first === "--help" || first === "-h" || (first === "help" && argv.length === 1)) {
    process.stdout.write(globalHelp(out, cordonVersion()));
    return EXIT.ok;
  }
  if (first === "--version" || first === "-v") {
    process.stdout.write(`${cordonVersion()}\n`);
    return EXIT.ok;
  }
  if (first === "help") {
    const found = findCommand(argv.slice(1));
    if (found) {
      process.stdout.write(commandHelp(found.spec, out));
      return EXIT.ok;
    }
  }
  const found = findCommand(argv);
  if (!found) {
    const known = COMMANDS.map((command) => command.name).join(", ");
    process.stderr.write(
      `cordon: unknown command ${JSON.stringify(first)}. This build of cordon has: ${known}. Run cordon --help.\n`,
    );
    return EXIT.usage;
  }
  const { spec } = found;
  try {
    const parsed = parse(spec, argv.slice(found.words));
    if (parsed.values.help === true) {
      process.stdout.write(commandHelp(spec, out));
      return EXIT.ok;
    }
    const { run } = await spec.load();
    return await run(parsed);
  } catch (error) {
    if (error instanceof UsageError || error instanceof UserError) {
      process.stderr.write(
        `${err.red(`cordon ${spec.name}:`)} ${error.message}\n${err.dim(`Run cordon ${spec.name} --help for usage.`)}\n`,
      );
      return EXIT.usage;
    }
    process.stderr.write(`${err.red(`cordon ${spec.name}:`)} ${messageOf(error)}\n`);
    if (process.env.CORDON_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return EXIT.codeFailed;
  }
}

function parse(spec: CommandSpec, args: string[]): ParsedCommand {
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> = {
    help: { type: "boolean", short: "h" },
  };
  for (const option of spec.options) {
    options[option.name] = { type: option.type, ...(option.multiple ? { multiple: true } : {}) };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(messageOf(error));
  }
  const { values, positionals } = parsed;
  if (values.help !== true) {
    const { min, max } = spec.positionals;
    if (positionals.length < min) {
      throw new UsageError(`missing argument: expected ${spec.usage[0]}.`);
    }
    if (positionals.length > max) {
      throw new UsageError(
        `unexpected argument ${JSON.stringify(positionals[max])}: expected cordon ${spec.usage[0]}.`,
      );
    }
  }
  return { values: values as ParsedCommand["values"], positionals };
}
