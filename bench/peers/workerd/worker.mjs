// The workerd half of bench-peers: cordon's QuickJS environment and Cloudflare's codemode
// (@cloudflare/codemode's DynamicWorkerExecutor on a Worker Loader binding, with its AI SDK createCodeTool
// as its README's quick start sets it up) in one Worker, each doing bench-peers' measures (measure.mjs)
// with the same two tools. GET /measure?executor=cordon|cloudflare runs one round of one executor and
// answers its figures as JSON (a failed or wrong run answers 500 with what went wrong). workerd's clock
// counts whole milliseconds, so each timed sample groups 5 runs (the same runs as in Node, grouped).
// Bundled by workerd/bundle.mjs, served by workerd/bench.capnp (scripts/bench-peers.sh starts it).

import { DynamicWorkerExecutor } from "@cloudflare/codemode";
import { createCodeTool } from "@cloudflare/codemode/ai";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import wasmModule from "@jitl/quickjs-wasmfile-release-sync/wasm";
import { tool } from "ai";
import { quickjsEnvironment } from "cordon/quickjs";
import { newVariant } from "quickjs-emscripten-core";
import { z } from "zod";
import { cordonExecutor } from "../cordon.mjs";
import { measure } from "../measure.mjs";

/** Runs per timed sample: workerd's performance.now() counts whole milliseconds. */
const BATCH = 5;
const sleep10 = () => new Promise((resolve) => setTimeout(() => resolve(10), 10));

function cloudflareExecutor(loader) {
  const tools = {
    echo: tool({
      description: "Echo.",
      inputSchema: z.object({ n: z.number() }),
      execute: async ({ n }) => n,
    }),
    sleep: tool({ description: "Sleep 10 ms.", inputSchema: z.object({}), execute: sleep10 }),
  };
  const codeTool = createCodeTool({ tools, executor: new DynamicWorkerExecutor({ loader }) });
  let calls = 0;
  return {
    run: async (code, expected) => {
      // It throws when the code failed (its error and logs in the message), else answers { result }.
      const output = await codeTool.execute({ code }, { toolCallId: `bench-${++calls}`, messages: [] });
      if (output?.result !== expected) {
        throw new Error(
          `Cloudflare codemode: run of ${code.slice(0, 60)}: ${JSON.stringify(output)?.slice(0, 400)}`,
        );
      }
    },
    code: {
      trivial: "async () => 1 + 1",
      loop: (n) =>
        `async () => { let s = 0; for (let i = 0; i < ${n}; i++) s = await codemode.echo({ n: s + 1 }); return s; }`,
      fan: "async () => (await Promise.all(Array.from({ length: 100 }, () => codemode.sleep({})))).length",
    },
  };
}

/**
 * Each executor is made anew for each request: a Worker's promises and I/O belong to the request that
 * made them (a spare sandbox cordon warmed in one request could not settle in the next).
 */
const EXECUTORS = {
  cordon: () =>
    cordonExecutor(
      "cordon, QuickJS in workerd",
      quickjsEnvironment({ variant: newVariant(releaseSync, { wasmModule }) }),
    ),
  cloudflare: (env) => cloudflareExecutor(env.LOADER),
};

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/ready") return new Response("ready");
    const key = url.searchParams.get("executor");
    if (url.pathname !== "/measure" || !Object.hasOwn(EXECUTORS, key)) {
      return new Response("GET /measure?executor=cordon|cloudflare", { status: 404 });
    }
    const executor = EXECUTORS[key](env);
    try {
      return Response.json(await measure(executor, { batch: BATCH }));
    } catch (error) {
      return new Response(error instanceof Error ? (error.stack ?? error.message) : String(error), {
        status: 500,
      });
    } finally {
      await executor.close?.();
    }
  },
};
