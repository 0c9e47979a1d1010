/** `cordon --help` and `--help` on every command of the table, as a process; unknown commands exit 2. */

import { beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands.js";
import { cordon, ensureBuilt } from "./helpers.js";

beforeAll(() => ensureBuilt());

describe("cordon --help", () => {
  it("lists every command; exit 0", async () => {
    const { code, stdout } = await cordon(["--help"]);
    expect(code).toBe(0);
    for (const command of COMMANDS) expect(stdout).toContain(`  ${command.name}`);
  });

  it("without a command prints the same help on stderr and exits 2", async () => {
    const { code, stderr } = await cordon([]);
    expect(code).toBe(2);
    expect(stderr).toContain("Commands");
  });

  it("an unknown command exits 2 and names the commands there are", async () => {
    const { code, stderr } = await cordon(["deploy"]);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "deploy"');
    expect(stderr).toContain(COMMANDS.map((c) => c.name).join(", "));
  });

  for (const command of COMMANDS) {
    it(`cordon ${command.name} --help shows its usage and every option; exit 0`, async () => {
      const { code, stdout } = await cordon([...command.name.split(" "), "--help"]);
      expect(code).toBe(0);
      expect(stdout).toContain(`cordon ${command.usage[0]}`);
      for (const option of command.options) expect(stdout).toContain(`--${option.name}`);
      expect(stdout).toContain("-h, --help");
    });
  }
});
