# workerd's configuration for the runtime matrix's Worker (scripts/runtime-matrix.sh): one ES module
# Worker, bundled with cordon and QuickJS by scripts/bundle-runtime-checks.mjs, and QuickJS's wasm as a
# module of its own. The socket is 127.0.0.1 only; the script picks the port with --socket-addr.
# Its compatibility date has Node compatibility (nodejs_compat) on by default, as cordon needs.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "checks", worker = .checksWorker)],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "checks")],
);

const checksWorker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "quickjs.wasm", wasm = embed "quickjs.wasm"),
  ],
  compatibilityDate = "2026-11-01",
);
