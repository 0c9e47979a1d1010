import { request } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { z } from "zod";
import { remoteEnvironment, type SandboxServer, serveSandboxes } from "../../environments/remote/index.js";
import { sandboxHostEnvironment } from "../../environments/sandbox-host/index.js";
import { MAX_GIVEN_UP_RUNS } from "../../environments/wire/connection.js";
import {
  type Command,
  type Environment,
  encodeMessage,
  PROTOCOL_VERSION,
  parseCommand,
} from "../../sandbox/contract/index.js";
import { processHealth } from "../../sandbox/program/health.js";
import {
  type CodeMode,
  type CodeRunResult,
  codeMode,
  Dispatcher,
  Toolset,
  tool,
  UserError,
} from "../../src/index.js";

const TOKEN = "a-token-of-more-than-sixteen-characters";
const servers: SandboxServer[] = [];
const modes: CodeMode[] = [];

afterAll(async () => {
  await Promise.all(modes.map((cm) => cm.close()));
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(maxSandboxes = 4): Promise<SandboxServer> {
  const server = await serveSandboxes({
    environment: sandboxHostEnvironment({ processes: 1 }),
    token: TOKEN,
    maxSandboxes,
  });
  servers.push(server);
  return server;
}

function client(
  server: SandboxServer,
  tools: Toolset,
  options: Partial<Parameters<typeof codeMode>[0]> = {},
  token = TOKEN,
) {
  const cm = codeMode({ tools, environment: remoteEnvironment({ url: server.url, token }), ...options });
  modes.push(cm);
  return cm;
}

/**
 * Opens idle sessions on `cm` until the server refuses one, as a token holder that takes its whole share
 * and leaves it idle: resolves with how many it holds and the refused run.
 */
async function holdShare(cm: CodeMode): Promise<{ held: number; refused: CodeRunResult }> {
  for (let held = 0; ; held++) {
    const run = await cm.run("var held = 1;", { session: `idle-${held}` });
    if (run.status !== "ok") return { held, refused: run };
  }
}

function shop() {
  const ran: string[] = [];
  const lookup = tool({
    name: "lookup",
    description: "Look up.",
    input: z.object({ id: z.string() }),
    run: ({ id }) => {
      ran.push(`lookup ${id}`);
      return { id, pid: process.pid };
    },
  });
  const refund = tool({
    name: "refund",
    description: "Refund.",
    input: z.object({ id: z.string() }),
    needsApproval: true,
    run: ({ id }) => {
      ran.push(`refund ${id}`);
      return "refunded";
    },
  });
  const slow = tool({
    name: "slow",
    description: "Slow.",
    input: z.object({}),
    run: () => new Promise((resolve) => setTimeout(() => resolve("late"), 30_000)),
  });
  return { tools: new Toolset([lookup, refund, slow]), ran };
}

describe("remote environment and cordon serve", () => {
  it("runs code on the server while its tool calls run here, in the client's process", async () => {
    const server = await serve();
    const { tools, ran } = shop();
    const cm = client(server, tools);
    const result = await cm.run("console.log('remote'); return await tools.lookup({ id: 'A1' });");
    expect(result).toMatchObject({ status: "ok", value: { id: "A1", pid: process.pid } });
    expect(result.logs).toEqual([{ level: "log", text: "remote" }]);
    expect(ran).toEqual(["lookup A1"]);
  });

  it("approval happens where the tools live: the client's handler decides calls made on the server", async () => {
    const server = await serve();
    const { tools, ran } = shop();
    const decided: string[] = [];
    const dispatcher = new Dispatcher(tools, {
      approvalHandler: ({ args }) => {
        decided.push((args as { id: string }).id);
        return (args as { id: string }).id === "A1" ? "allow" : "deny";
      },
    });
    const cm = client(server, tools, { dispatcher });
    const result = await cm.run(
      "const a = await tools.refund({ id: 'A1' }); let b; try { await tools.refund({ id: 'B2' }); } catch (e) { b = e.kind; } return [a, b];",
    );
    expect(result.value).toEqual(["refunded", "denied"]);
    expect(decided).toEqual(["A1", "B2"]);
    expect(ran).toEqual(["refund A1"]);
  });

  it("a client with a wrong token learns nothing but unauthorized", async () => {
    const server = await serve();
    const cm = client(server, shop().tools, {}, "not-the-token-not-the-token");
    const result = await cm.run("1");
    expect(result.status).toBe("error");
    expect(result.error?.message).toMatch(/refused the token \(unauthorized\)/);
    const raw = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(server.url.replace("ws:", "http:"), {
        headers: {
          connection: "upgrade",
          upgrade: "websocket",
          authorization: "Bearer nope",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        },
      });
      req.on("response", (response) => {
        let body = "";
        response.on("data", (chunk) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
    expect(raw).toEqual({ status: 401, body: "unauthorized" });
    const plain = await fetch(server.url.replace("ws:", "http:"));
    expect({ status: plain.status, body: await plain.text() }).toEqual({ status: 401, body: "unauthorized" });
  });

  it("a server at capacity answers busy with a clear error, and takes runs again when there is room", async () => {
    const server = await serve(1);
    const { tools } = shop();
    const sessions = client(server, tools, { state: "session" });
    await sessions.run("var held = 1;", { session: "holder" });
    const other = client(server, tools);
    const busy = await other.run("1 + 1");
    expect(busy.status).toBe("error");
    expect(busy.error?.name).toBe("SandboxBusy");
    expect(busy.error?.message).toMatch(/busy: it runs 1 sandboxes, its limit/);
    await sessions.close();
    await expect.poll(async () => (await other.run("1 + 1")).value, { timeout: 10_000 }).toBe(2);
  });

  it("a client that asks for a 10^12 ms CPU budget gets the server's ceiling, and the code is told so", async () => {
    const server = await serveSandboxes({
      environment: sandboxHostEnvironment({ processes: 1 }),
      token: TOKEN,
      ceilings: { cpuTimeMs: 300, timeoutMs: 5_000 },
    });
    servers.push(server);
    const cm = client(server, shop().tools, { limits: { cpuTimeMs: 1e12, timeoutMs: 600_000 } });
    const looped = await cm.run("while (true) {}");
    expect(looped.status).toBe("limit");
    expect(looped.error?.name).toBe("CpuTimeLimit");
    expect(looped.error?.message).toContain("more than 300 ms of CPU time");
    expect(looped.logs[0]).toEqual({
      level: "warn",
      text: "The sandbox server holds this run to lower limits than it asked for: timeoutMs 5,000 (asked for 600,000), cpuTimeMs 300 (asked for 1,000,000,000,000).",
    });
  });

  it("a raw client that ignores the ceilings it was told and asks for 10^12 ms anyway is held to them", async () => {
    const server = await serveSandboxes({
      environment: sandboxHostEnvironment({ processes: 1 }),
      token: TOKEN,
      ceilings: { cpuTimeMs: 300 },
    });
    servers.push(server);
    const ws = new WebSocket(server.url, { headers: { authorization: `Bearer ${TOKEN}` } });
    const reports: {
      type: string;
      ceilings?: unknown;
      outcome?: { status: string; error?: { name: string } };
    }[] = [];
    ws.on("message", (data) => {
      for (const line of String(data).split("\n").filter(Boolean)) reports.push(JSON.parse(line));
    });
    await new Promise((resolve) => ws.on("open", resolve));
    const limits = {
      timeoutMs: 600_000,
      cpuTimeMs: 1e12,
      memoryMb: 64,
      maxLogChars: 1_000,
      maxResultChars: 1_000,
    };
    const send = (command: Command) => ws.send(encodeMessage(command));
    send({ type: "open", sandbox: 1, limits });
    send({ type: "exec", sandbox: 1, run: 2, request: { code: "while (true) {}", toolNames: {}, limits } });
    await expect
      .poll(() => reports.find((report) => report.type === "done"), { timeout: 15_000 })
      .toBeDefined();
    expect(reports[0]).toMatchObject({ type: "hello", ceilings: { cpuTimeMs: 300, timeoutMs: 300_000 } });
    const done = reports.find((report) => report.type === "done")!;
    expect(done.outcome).toMatchObject({ status: "limit", error: { name: "CpuTimeLimit" } });
    ws.close();
  });

  it("one client cannot take every sandbox: past its share its run is busy, and another client still gets one", async () => {
    const server = await serve(4);
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const wait = tool({
      name: "wait",
      description: "Waits.",
      input: z.object({}),
      run: () => gate.then(() => "done"),
    });
    const greedy = client(server, new Toolset([wait]));
    const held = [greedy.run("await tools.wait({})"), greedy.run("await tools.wait({})")];
    await expect.poll(() => server.clients, { timeout: 10_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const third = await greedy.run("1 + 1");
    expect(third.error?.name).toBe("SandboxBusy");
    expect(third.error?.message).toMatch(/already holds 2 of the sandbox server's 4 sandboxes, its share/);
    const other = client(server, shop().tools);
    expect((await other.run("6 * 7")).value).toBe(42);
    open();
    expect((await Promise.all(held)).map((run) => run.status)).toEqual(["ok", "ok"]);
  });

  it("a client that holds its share of idle sessions makes another client's trivial run wait for no sandbox process", async () => {
    // The environment runs at most 2 processes and keeps tenants apart, as a default server's runs 8 for
    // 16 sandboxes: a share that could pin every process starved the others until placement gave up.
    const server = await serveSandboxes({
      environment: sandboxHostEnvironment({ processes: 1, maxProcesses: 2 }),
      token: TOKEN,
    });
    servers.push(server);
    const holder = client(server, shop().tools, { state: "session" });
    const { refused } = await holdShare(holder);
    const other = await client(server, shop().tools).run("6 * 7");
    expect({ status: other.status, value: other.value }).toEqual({ status: "ok", value: 42 });
    // What stopped the holder was its share, not a wait for a process.
    expect(refused.error?.name).toBe("SandboxBusy");
    expect(refused.error?.message).toMatch(/its share/);
  }, 90_000);

  it("several clients that each hold their share of idle sessions get all of it, and the next client is told busy at once", async () => {
    const server = await serveSandboxes({
      environment: sandboxHostEnvironment({ processes: 1, maxProcesses: 4 }),
      token: TOKEN,
    });
    servers.push(server);
    const first = client(server, shop().tools, { state: "session" });
    const second = client(server, shop().tools, { state: "session" });
    const shares = [await holdShare(first), await holdShare(second)];
    expect(shares.map(({ held, refused }) => [held, refused.error?.name])).toEqual([
      [2, "SandboxBusy"],
      [2, "SandboxBusy"],
    ]);
    const next = client(server, shop().tools);
    const busy = await next.run("6 * 7");
    expect(busy.error?.name).toBe("SandboxBusy");
    expect(busy.error?.message).toMatch(/busy: it runs 4 sandboxes, its limit/);
    await first.close();
    await expect.poll(async () => (await next.run("6 * 7")).value, { timeout: 10_000 }).toBe(42);
  }, 90_000);

  it("refuses a maxSandboxes that its environment cannot keep apart, saying what to change", async () => {
    await expect(
      serveSandboxes({
        environment: sandboxHostEnvironment({ maxProcesses: 4 }),
        token: TOKEN,
        maxSandboxes: 5,
      }),
    ).rejects.toThrow(
      "serveSandboxes: maxSandboxes is 5, but the environment (sandbox-host) keeps at most 4 sandboxes apart at once",
    );
  });

  it("one client's V8 fatal error on the server ends none of another client's runs (each client a tenant of its own)", async () => {
    const server = await serve(8);
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const wait = tool({
      name: "wait",
      description: "Waits.",
      input: z.object({}),
      run: () => gate.then(() => "ok"),
    });
    const calm = client(server, new Toolset([wait]));
    const running = calm.run("await tools.wait({}); 'finished'");
    await new Promise((resolve) => setTimeout(resolve, 500));
    const crashed = await client(server, shop().tools).run('"x".repeat(2 ** 27).split("").length');
    expect(crashed.error?.name).toBe("MemoryLimit");
    open();
    expect((await running).value).toBe("finished");
  });

  it("a dropped connection ends its runs with a clear error and frees their sandboxes on the server", async () => {
    const server = await serve(1);
    const { tools } = shop();
    const env = remoteEnvironment({ url: server.url, token: TOKEN });
    const cm = codeMode({ tools, environment: env });
    const running = cm.run("await tools.slow({})");
    await expect.poll(() => server.clients, { timeout: 10_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await env.close();
    const result = await running;
    expect(result.status).toBe("error");
    expect(result.error?.message).toMatch(/connection to the sandbox server was lost/);
    await expect.poll(() => server.clients, { timeout: 10_000 }).toBe(0);
    // Its sandbox was freed: the one slot is free for the next client.
    const next = client(server, tools);
    await expect.poll(async () => (await next.run("40 + 2")).value, { timeout: 10_000 }).toBe(42);
  });

  it("a client that sends garbage is told why and disconnected; the server keeps serving", async () => {
    const server = await serve();
    const ws = new WebSocket(server.url, { headers: { authorization: `Bearer ${TOKEN}` } });
    const messages: string[] = [];
    ws.on("message", (data) => messages.push(String(data)));
    await new Promise((resolve) => ws.on("open", resolve));
    ws.send("this is not a command\n");
    const code = await new Promise<number>((resolve) => ws.on("close", (closeCode) => resolve(closeCode)));
    expect(code).toBe(1008);
    expect(messages.some((line) => line.includes('"type":"fatal"') && line.includes("cannot read"))).toBe(
      true,
    );
    const cm = client(server, shop().tools);
    expect((await cm.run("6 * 7")).value).toBe(42);
  });

  it("a client that floods one message with thousands of pings is disconnected at once; the server keeps serving", async () => {
    const server = await serve();
    const ws = new WebSocket(server.url, { headers: { authorization: `Bearer ${TOKEN}` } });
    const messages: string[] = [];
    ws.on("message", (data) => messages.push(String(data)));
    await new Promise((resolve) => ws.on("open", resolve));
    ws.send(
      Array.from({ length: 10_000 }, (_, id) => JSON.stringify({ type: "ping", id })).join("\n") + "\n",
    );
    const code = await new Promise<number>((resolve) => ws.on("close", (closeCode) => resolve(closeCode)));
    expect(code).toBe(1008);
    expect(messages.filter((line) => line.includes('"type":"pong"'))).toEqual([]);
    expect(messages.some((line) => line.includes("commands in one message"))).toBe(true);
    const cm = client(server, shop().tools);
    expect((await cm.run("6 * 7")).value).toBe(42);
  });

  it("a server that accepts the connection but never starts the protocol fails the run at the connect timeout", async () => {
    const silent = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => silent.once("listening", () => resolve()));
    const { port } = silent.address() as { port: number };
    try {
      const cm = codeMode({
        tools: shop().tools,
        environment: remoteEnvironment({
          url: `ws://127.0.0.1:${port}/sandbox`,
          token: TOKEN,
          connectTimeoutMs: 300,
        }),
      });
      const result = await cm.run("1 + 1");
      await cm.close();
      expect(result.status).toBe("error");
      expect(result.error?.message).toContain("did not start the protocol within 300 ms");
    } finally {
      for (const ws of silent.clients) ws.terminate();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("a run its server never ends is given up alone at its limit: a run beside it on the same connection still finishes, and the server's late done is no violation (fake server that stalls runs)", async () => {
    const fake = await stallingServer();
    const environment = remoteEnvironment({ url: fake.url, token: TOKEN });
    const cm = codeMode({ tools: shop().tools, environment, limits: { timeoutMs: 200 } });
    try {
      // The stuck run is given up at 200 ms + the 2 s grace, and the server reports it done at 4 s; the
      // run beside it starts 1.5 s in and is answered 1.5 s later, within its own limit.
      const stuckRun = cm.run("'late'");
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const [stuck, beside] = await Promise.all([stuckRun, cm.run("1 + 1")]);
      expect(stuck.status).toBe("timeout");
      expect(stuck.error?.message).toMatch(/did not finish within 200 ms .* cordon stopped the sandbox/);
      expect(beside.status).toBe("ok");
      expect(beside.value).toBe(2);
      // The stuck run's sandbox was handed back to the server to dispose.
      expect(fake.disposed.length).toBeGreaterThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect((await cm.run("1 + 1")).value).toBe(2);
      // One connection all along: the late done of the given-up run did not end it.
      expect(fake.connections()).toBe(1);
    } finally {
      await cm.close();
      await fake.close();
    }
  });

  it("a server that leaves too many runs stuck is stopped (fake server that never ends runs)", async () => {
    const fake = await stallingServer();
    const environment = remoteEnvironment({ url: fake.url, token: TOKEN });
    const cm = codeMode({ tools: shop().tools, environment, limits: { timeoutMs: 200 } });
    try {
      const runs = await Promise.all(Array.from({ length: MAX_GIVEN_UP_RUNS + 1 }, () => cm.run("'hang'")));
      expect(runs.every((run) => run.status !== "ok")).toBe(true);
      // The connection was ended; the next run makes a new one.
      expect((await cm.run("1 + 1")).value).toBe(2);
      expect(fake.connections()).toBe(2);
    } finally {
      await cm.close();
      await fake.close();
    }
  });

  it("a run cancelled while the server still opens its sandbox is answered at once as cancelled, and the connection serves on", async () => {
    // The server's environment takes 3 s to open each sandbox (a real one, behind a slow door).
    const real = sandboxHostEnvironment({ processes: 1 });
    const slowDoor: Environment = {
      name: real.name,
      isolation: real.isolation,
      open: (limits) => new Promise((resolve) => setTimeout(resolve, 3_000)).then(() => real.open(limits)),
      close: () => real.close(),
    };
    const server = await serveSandboxes({ environment: slowDoor, token: TOKEN });
    servers.push(server);
    const cm = client(server, shop().tools);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const cancelled = await cm.run("1 + 1", { signal: controller.signal });
    expect(cancelled.status).toBe("cancelled");
    // The server said so itself; a client that had to give up on it would say the run was stuck.
    expect(cancelled.error?.message).toContain("before its sandbox was ready");
    expect((await cm.run("6 * 7")).value).toBe(42);
  });

  it("a server that sends a 12 MB value or an 8 MB error cannot put them into the run's result (fake server that lies about sizes)", async () => {
    const fake = await lyingServer();
    const cm = codeMode({
      tools: shop().tools,
      environment: remoteEnvironment({ url: fake.url, token: TOKEN }),
    });
    try {
      const big = await cm.run("'value'");
      expect(big.status).toBe("limit");
      expect(big.value).toBeUndefined();
      expect(big.error?.name).toBe("ResultTooLarge");
      expect(big.error?.message).toMatch(
        /^The result is 12,000,002 characters of JSON, over the limit of 1,000,000/,
      );
      const loud = await cm.run("'error'");
      expect(loud.status).toBe("error");
      expect(loud.error!.name.length).toBeLessThan(300);
      expect(loud.error!.message.length).toBeLessThan(20_100);
      expect(loud.error!.message).toMatch(/… \[7,980,000 more characters\]$/);
    } finally {
      await cm.close();
      await fake.close();
    }
  });

  it("refuses a short token when the server is started", async () => {
    await expect(serveSandboxes({ environment: sandboxHostEnvironment(), token: "short" })).rejects.toThrow(
      UserError,
    );
  });
});

/**
 * A sandbox server that speaks the protocol but stalls runs: one whose code says "hang" is never
 * reported done, one that says "late" is reported done after 4 s, any other after 1.5 s.
 */
async function stallingServer() {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as { port: number };
  const disposed: number[] = [];
  let connections = 0;
  server.on("connection", (ws) => {
    connections++;
    const send = (report: Parameters<typeof encodeMessage>[0]) => ws.send(encodeMessage(report));
    send({ type: "hello", protocol: PROTOCOL_VERSION, node: process.version });
    ws.on("message", (data: Buffer) => {
      for (const line of data.toString().split("\n").filter(Boolean)) {
        const command: Command = parseCommand(line);
        if (command.type === "ping") send({ type: "pong", id: command.id, health: processHealth() });
        else if (command.type === "dispose") disposed.push(command.sandbox);
        else if (command.type === "exec" && !command.request.code.includes("hang")) {
          const done = { type: "done", run: command.run, alive: true, tainted: false } as const;
          const after = command.request.code.includes("late") ? 4_000 : 1_500;
          setTimeout(() => send({ ...done, outcome: { status: "ok", valueJson: "2" } }), after);
        }
      }
    });
  });
  return {
    url: `ws://127.0.0.1:${port}/sandbox`,
    disposed,
    connections: () => connections,
    async close() {
      for (const ws of server.clients) ws.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A sandbox server that answers every run at once, with a value or an error far over the caps. */
async function lyingServer() {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as { port: number };
  server.on("connection", (ws) => {
    const send = (report: Parameters<typeof encodeMessage>[0]) => ws.send(encodeMessage(report));
    send({ type: "hello", protocol: PROTOCOL_VERSION, node: process.version });
    ws.on("message", (data: Buffer) => {
      for (const line of data.toString().split("\n").filter(Boolean)) {
        const command: Command = parseCommand(line);
        if (command.type === "ping") send({ type: "pong", id: command.id, health: processHealth() });
        else if (command.type === "exec") {
          const done = { type: "done", run: command.run, alive: true, tainted: false } as const;
          if (command.request.code.includes("value")) {
            send({ ...done, outcome: { status: "ok", valueJson: JSON.stringify("x".repeat(12_000_000)) } });
          } else {
            const error = { name: "E".repeat(5_000), message: "m".repeat(8_000_000) };
            send({ ...done, outcome: { status: "error", error } });
          }
        }
      }
    });
  });
  return {
    url: `ws://127.0.0.1:${port}/sandbox`,
    async close() {
      for (const ws of server.clients) ws.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
