/** The code `cordon run` runs: a file, or standard input for `-`. */

import { readFile } from "node:fs/promises";
import { UsageError } from "../../common/errors.js";

/** Reads the code from `source` (a path, or `-` for standard input). */
export async function readCode(source: string, stdin: NodeJS.ReadStream): Promise<string> {
  if (source === "-") {
    if (stdin.isTTY) {
      throw new UsageError(
        "- reads the code from standard input, but it is a terminal: pipe the code in, e.g. `cat task.ts | cordon run - --tools tools.ts`.",
      );
    }
    const chunks: Buffer[] = [];
    for await (const chunk of stdin as AsyncIterable<Buffer>) chunks.push(chunk);
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await readFile(source, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why =
      code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : (error as Error).message;
    throw new UsageError(
      `cannot read ${source}: ${why}. Give a TypeScript file to run, or - to read the code from standard input.`,
    );
  }
}
