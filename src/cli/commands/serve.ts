/**
 * `cordon serve`: sandboxes for remote agents, over an authenticated WebSocket (serveSandboxes). The
 * token comes from CORDON_TOKEN. Runs until SIGINT or SIGTERM.
 */

import { UsageError } from "../../../common/errors.js";
import { DEFAULT_MAX_SANDBOXES, DEFAULT_SERVE_PORT, loadDriver, MIN_TOKEN_CHARS } from "../../load-driver.js";
import { EXIT } from "../cli-error.js";
import { choiceOption, integerOption, type ParsedCommand, stringOption } from "../command-spec.js";
import { createEnvironment } from "../env-choices.js";

/** The port `cordon serve` listens on by default. */
export { DEFAULT_SERVE_PORT };

/** Runs the command; resolves with the exit code once the server has stopped. */
export async function run(input: ParsedCommand): Promise<number> {
  const token = process.env.CORDON_TOKEN;
  if (!token || token.length < MIN_TOKEN_CHARS) {
    throw new UsageError(
      `cordon serve reads its token from CORDON_TOKEN, which must hold at least ${MIN_TOKEN_CHARS} characters (for example CORDON_TOKEN=$(openssl rand -hex 24)).`,
    );
  }
  const port = integerOption(input, "port", { min: 0, max: 65_535 }) ?? DEFAULT_SERVE_PORT;
  const maxSandboxes =
    integerOption(input, "max-sandboxes", { min: 1, max: 100_000 }) ?? DEFAULT_MAX_SANDBOXES;
  const perClient = integerOption(input, "max-sandboxes-per-client", { min: 1, max: maxSandboxes });
  const envName = choiceOption(input, "env", ["default", "docker"]);
  // A process or container for every sandbox the server admits: one client's share cannot pin them all.
  const environment = await createEnvironment(envName, {
    oneShot: false,
    env: process.env,
    capacity: maxSandboxes,
  });
  const { serveSandboxes } = await loadDriver.remote();
  const server = await serveSandboxes({
    environment,
    token,
    port,
    host: stringOption(input, "host") ?? "127.0.0.1",
    maxSandboxes,
    ...(perClient === undefined ? {} : { maxSandboxesPerClient: perClient }),
  });
  process.stderr.write(
    `cordon serve: sandboxes (${envName}) at ${server.url}, at most ${maxSandboxes} at once\n`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  process.stderr.write("cordon serve: stopping\n");
  await server.close();
  return EXIT.ok;
}
