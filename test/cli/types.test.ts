/** `cordon types`, as a process: the declarations and instructions a model gets for a tools module. */

import { beforeAll, describe, expect, it } from "vitest";
import { cordon, ensureBuilt, SHOP_TOOLS } from "./helpers.js";

beforeAll(() => ensureBuilt());

describe("cordon types", () => {
  it("prints the declarations of the shop's tools, then the instructions, which point to where they are", async () => {
    const { code, stdout } = await cordon(["types", "--tools", SHOP_TOOLS]);
    expect(code).toBe(0);
    const [declarations, instructions] = stdout.split("// instructions");
    expect(declarations).toContain("declare const tools: {");
    expect(declarations).toMatch(/refund_order\(args: \{[\s\S]*order_id: string;/);
    expect(declarations).toContain("Refunds above 50 need a person's approval");
    expect(instructions).toContain("## Running code with run_code");
    // The declarations are sent once, in the run_code tool's description (discovery.declarationsIn "tool").
    expect(instructions).not.toContain("find_customers(args: {");
    expect(instructions).toContain("declared in the description of the run_code tool");
    expect(instructions).toContain("separate sandbox process");
  });

  it("--json gives the run_code tool, the declarations and the instructions; --env changes what isolation is claimed", async () => {
    const { code, stdout } = await cordon(["types", "--tools", SHOP_TOOLS, "--json", "--env", "inprocess"]);
    expect(code).toBe(0);
    const shown = JSON.parse(stdout);
    expect(shown.tool.name).toBe("run_code");
    expect(shown.tool.parameters.required).toEqual(["code"]);
    expect(shown.declarations).toContain("list_refunds(");
    expect(shown.tool.description).toContain("list_refunds(");
    expect(shown.instructions).not.toContain("separate sandbox process");
  });

  it("--timeout changes the limit the instructions quote", async () => {
    const { stdout } = await cordon(["types", "--tools", SHOP_TOOLS, "--timeout", "5000"]);
    expect(stdout).toMatch(/5 s wall-clock time/);
  });

  it("without --tools: usage error, exit 2", async () => {
    const { code, stderr } = await cordon(["types"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--tools is required");
  });
});
