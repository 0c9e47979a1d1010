/**
 * `--observed-types <file>` end to end, as processes: `cordon run` and `cordon mcp` learn result types
 * and write them to the file, `cordon types` shows them, and a bad file is a clear usage error.
 */

import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, connectStdio, runCode, textOf } from "../mcp/helpers.js";
import { cordon, ensureBuilt } from "./helpers.js";

const NOTES = "test/cli/fixtures/tools.ts";
const dir = mkdtempSync(join(tmpdir(), "cordon-observed-"));

beforeAll(() => ensureBuilt());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GET_NOTE_LINE = "Returns (observed): { id: number; text: string }";

describe("cordon run and cordon types with --observed-types", () => {
  const file = join(dir, "types.json");

  it("cordon run learns the results' types and writes them to the file, made on the first run", async () => {
    const run = await cordon(["run", "-", "--tools", NOTES, "--observed-types", file, "--json"], {
      input:
        "const note = await tools.get_note({ id: 1 }); const all = await tools.list_notes(); return [note.text, all.length]",
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).value).toEqual(["buy milk", 2]);
    const saved = JSON.parse(readFileSync(file, "utf8"));
    expect(saved.format).toBe("cordon-observed-types");
    expect(Object.keys(saved.tools).sort()).toEqual(["get_note", "list_notes"]);
  });

  it("cordon types shows them in the declarations, for the tools that have one", async () => {
    const { code, stdout } = await cordon(["types", "--tools", NOTES, "--observed-types", file]);
    expect(code).toBe(0);
    const [declarations] = stdout.split("// instructions");
    expect(declarations).toContain(GET_NOTE_LINE);
    expect(declarations).toContain("Returns (observed): { id: number; text: string }[]");
    expect(declarations).toMatch(/get_note\(args: \{[^}]*\}\): Promise<unknown>;/);
    // delete_note was never called: nothing learnt, nothing shown.
    expect(declarations).toContain("/** Delete a note (a person must approve). */");

    const json = await cordon(["types", "--tools", NOTES, "--observed-types", file, "--json"]);
    expect(JSON.parse(json.stdout).observed).toEqual({
      list_notes: "{ id: number; text: string }[]",
      get_note: "{ id: number; text: string }",
    });
    // Without the option, what the model reads is as it always was.
    const plain = await cordon(["types", "--tools", NOTES]);
    expect(plain.stdout).not.toContain("Returns (observed)");
  });

  it("a later run adds to what the file holds", async () => {
    const run = await cordon(["run", "-", "--tools", NOTES, "--observed-types", file], {
      input: "return await tools.delete_note({ id: 2 })",
      env: {},
    });
    // delete_note needs approval and nobody can be asked: denied, so nothing is learnt from it.
    expect(run.code).toBe(1);
    const types = await cordon(["types", "--tools", NOTES, "--observed-types", file, "--json"]);
    expect(Object.keys(JSON.parse(types.stdout).observed).sort()).toEqual(["get_note", "list_notes"]);
  });

  it("a run that learns nothing still makes the file, so that cordon types can read it", async () => {
    const empty = join(dir, "empty.json");
    const run = await cordon(["run", "-", "--tools", NOTES, "--observed-types", empty], {
      input: "return 1",
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(readFileSync(empty, "utf8")).tools).toEqual({});
    const types = await cordon(["types", "--tools", NOTES, "--observed-types", empty, "--json"]);
    expect(types.code).toBe(0);
    expect(JSON.parse(types.stdout).observed).toEqual({});
  });

  it("the file other users could read result keys from (e-mail addresses, code names) is written 0600, never 0644", async () => {
    const made = join(dir, "private.json");
    const run = await cordon(["run", "-", "--tools", NOTES, "--observed-types", made], {
      input: "return (await tools.get_note({ id: 1 })).id",
    });
    expect(run.code).toBe(0);
    expect(statSync(made).mode & 0o777).toBe(0o600);
  });

  it("a file left readable by other users is made 0600 at the start, saying so, even by a run that learns nothing", async () => {
    const loose = join(dir, "loose.json");
    writeFileSync(loose, JSON.stringify({ format: "cordon-observed-types", version: 1, tools: {} }));
    chmodSync(loose, 0o644);
    const run = await cordon(["run", "-", "--tools", NOTES, "--observed-types", loose], {
      input: "return 1",
    });
    expect(run.code).toBe(0);
    expect(statSync(loose).mode & 0o777).toBe(0o600);
    expect(run.stderr).toContain(
      `--observed-types ${loose} was open to other users (mode 644): cordon made it 600, for you alone.`,
    );
  });

  it("a file that is not JSON, or not observed types, is a usage error saying what to do; nothing runs", async () => {
    const notJson = join(dir, "broken.json");
    writeFileSync(notJson, "{ not json");
    const run = await cordon(["run", "-", "--tools", NOTES, "--observed-types", notJson], {
      input: "return await tools.get_note({ id: 1 })",
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--observed-types ${notJson} is not JSON`);
    expect(run.stderr).toContain("Give the file cordon run or cordon mcp wrote with --observed-types");
    expect(readFileSync(notJson, "utf8")).toBe("{ not json");

    const other = join(dir, "other.json");
    writeFileSync(
      other,
      JSON.stringify({
        format: "cordon-observed-types",
        version: 1,
        tools: { t: { results: 1, type: { strnig: true } } },
      }),
    );
    const types = await cordon(["types", "--tools", NOTES, "--observed-types", other]);
    expect(types.code).toBe(2);
    expect(types.stderr).toContain('tools["t"].type has an unknown field "strnig"');
    expect(types.stderr).toContain("delete it and cordon writes a new one");
  });

  it("cordon types with a file that does not exist says which commands write it", async () => {
    const { code, stderr } = await cordon([
      "types",
      "--tools",
      NOTES,
      "--observed-types",
      join(dir, "none.json"),
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain("no such file. cordon run and cordon mcp write it");
  });

  it("cordon run refuses a file in a folder that does not exist, or one of its own files", async () => {
    const missing = await cordon(
      ["run", "-", "--tools", NOTES, "--observed-types", join(dir, "no/such/types.json")],
      {
        input: "1",
      },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("does not exist. Create it");
    const own = await cordon(["run", "-", "--tools", NOTES, "--observed-types", NOTES], { input: "1" });
    expect(own.code).toBe(2);
    expect(own.stderr).toContain("is also the --tools file");
  });
});

describe("cordon resume with --observed-types", () => {
  it("the run that paused and the run that resumed both add what they learnt", async () => {
    const file = join(dir, "paused-types.json");
    const checkpoint = join(dir, "run.ckpt");
    const env = {
      CORDON_TEST_EFFECTS: join(dir, "effects"),
      CORDON_CHECKPOINT_KEY: "a test key for cordon checkpoints, 32+ bytes",
      XDG_CONFIG_HOME: join(dir, "config"),
    };
    const tools = "test/cli/fixtures/pause-tools.ts";
    const code =
      'await tools.append({ line: "before" }); return await tools.send({ to: "ann", body: "hi" });';
    const paused = await cordon(
      [
        "run",
        "-",
        "--tools",
        tools,
        "--approve",
        "pause",
        "--checkpoint",
        checkpoint,
        "--observed-types",
        file,
      ],
      { input: code, env },
    );
    expect(paused.code).toBe(3);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).tools)).toEqual(["append"]);
    const resumed = await cordon(
      ["resume", checkpoint, "--tools", tools, "--approve", "all", "--observed-types", file],
      {
        env,
      },
    );
    expect(resumed.code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).tools).sort()).toEqual(["append", "send"]);
  }, 60_000);
});

describe("cordon mcp with --observed-types", () => {
  const file = join(dir, "mcp-types.json");

  it("writes what its runs learn, search_tools shows it at once, and the next server's run_code description", async () => {
    const first = await connectStdio(["--tools", NOTES, "--search-tools", "on", "--observed-types", file]);
    try {
      const result = await runCode(first.client, "return (await tools.get_note({ id: 2 })).text");
      expect(result.isError).toBeFalsy();
      const found = await first.client.callTool({ name: "search_tools", arguments: { query: "note by id" } });
      expect(textOf(found)).toContain(GET_NOTE_LINE);
      // The description the client was given has not changed.
      const { tools } = await first.client.listTools();
      expect(tools[0]!.description).not.toContain("Returns (observed)");
    } finally {
      await first.close();
    }
    expect(JSON.parse(readFileSync(file, "utf8")).tools.get_note.results).toBe(1);

    const second = await connectStdio(["--tools", NOTES, "--observed-types", file]);
    try {
      const { tools } = await second.client.listTools();
      expect(tools[0]!.description).toContain(GET_NOTE_LINE);
    } finally {
      await second.close();
    }
  }, 60_000);
});

describe("cordon mcp --http: learnt result types are each session's own unless shared", () => {
  /** A second client of the same server. */
  async function secondClient(url: string): Promise<Client> {
    const client = new Client({ name: "second-client", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  }

  const noteSearch = { name: "search_tools", arguments: { query: "note by id" } };

  it("client A's learnt types never reach client B's search_tools", async () => {
    const a = await connectHttp(["--tools", NOTES, "--search-tools", "on"]);
    try {
      expect((await runCode(a.client, "return (await tools.get_note({ id: 2 })).text")).isError).toBeFalsy();
      expect(textOf(await a.client.callTool(noteSearch))).toContain(GET_NOTE_LINE);
      const b = await secondClient(a.url);
      try {
        expect(textOf(await b.callTool(noteSearch))).not.toContain("Returns (observed)");
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
    }
  }, 60_000);

  it("--observed-types over --http without --share-observed-types is a usage error saying what each choice does; nothing is served", async () => {
    const shared = join(dir, "http-types.json");
    const { code, stderr } = await cordon([
      "mcp",
      "--tools",
      NOTES,
      "--http",
      "0",
      "--observed-types",
      shared,
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `--observed-types ${shared} keeps one file of learnt result types for every client of --http`,
    );
    expect(stderr).toContain("add --share-observed-types if every client may see them");
    expect(existsSync(shared)).toBe(false);
    const stdio = await cordon(["mcp", "--tools", NOTES, "--share-observed-types"]);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain("--share-observed-types only applies with --http <port>");
  });

  it("with --share-observed-types, client B's search_tools shows what client A's results taught, and the file keeps it 0600", async () => {
    const shared = join(dir, "shared-types.json");
    const a = await connectHttp([
      "--tools",
      NOTES,
      "--search-tools",
      "on",
      "--share-observed-types",
      "--observed-types",
      shared,
    ]);
    try {
      expect((await runCode(a.client, "return (await tools.get_note({ id: 2 })).text")).isError).toBeFalsy();
      const b = await secondClient(a.url);
      try {
        expect(textOf(await b.callTool(noteSearch))).toContain(GET_NOTE_LINE);
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
    }
    expect(JSON.parse(readFileSync(shared, "utf8")).tools.get_note.results).toBe(1);
    expect(statSync(shared).mode & 0o777).toBe(0o600);
  }, 60_000);
});
