# workerd's configuration for bench-peers' Worker (workerd/worker.mjs, bundled into worker.js by
# workerd/bundle.mjs, QuickJS's wasm beside it as a module of its own). The Worker Loader binding that
# @cloudflare/codemode's DynamicWorkerExecutor loads each run's Worker from is experimental in workerd:
# scripts/bench-peers.sh serves this with --experimental. 127.0.0.1 only; the port comes from --socket-addr.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "bench", worker = .benchWorker)],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "bench")],
);

const benchWorker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "quickjs.wasm", wasm = embed "quickjs.wasm"),
  ],
  compatibilityDate = "2026-11-01",
  bindings = [(name = "LOADER", workerLoader = ())],
);
