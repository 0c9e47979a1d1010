/** `cordon image build`: the sandbox image for --env docker, built FROM scratch with no registry. */

import { loadDriver } from "../../load-driver.js";
import { EXIT } from "../cli-error.js";
import { type ParsedCommand, stringOption } from "../command-spec.js";
import { progressOn } from "../progress.js";

/** Runs the command; resolves with the exit code. */
export async function run(input: ParsedCommand): Promise<number> {
  const { buildSandboxImage, SANDBOX_IMAGE } = await loadDriver.docker();
  const tag = stringOption(input, "tag") ?? SANDBOX_IMAGE;
  const progress = progressOn(process.stderr);
  progress.show(`building ${tag}`);
  try {
    await buildSandboxImage({
      tag,
      onProgress: (line) => progress.show(`building ${tag}: ${line.slice(0, 80)}`),
    });
  } finally {
    progress.clear();
  }
  process.stdout.write(`${tag}\n`);
  return EXIT.ok;
}
