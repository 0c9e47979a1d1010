/**
 * Which JavaScript runtime cordon runs on, as far as choosing the default engine cares: isolated-vm is
 * a native addon built against Node's own V8, so it loads on Node and on no other runtime (Bun runs
 * JavaScriptCore, Deno and workerd embed V8 without Node's addon interface).
 */

/** The runtime cordon is running on. */
export interface Runtime {
  /** Its name, as a sentence says it ("Node.js", "Bun", "Deno", "workerd"). */
  name: string;
  /** Whether a native addon built for Node (isolated-vm) can load here. */
  loadsNodeAddons: boolean;
}

/** The runtime of this process, from what each one puts on the global object. */
export function currentRuntime(): Runtime {
  const global = globalThis as {
    Bun?: unknown;
    Deno?: unknown;
    navigator?: { userAgent?: string };
    process?: { versions?: { node?: string } };
  };
  if (global.Bun !== undefined) return { name: "Bun", loadsNodeAddons: false };
  if (global.Deno !== undefined) return { name: "Deno", loadsNodeAddons: false };
  if (global.navigator?.userAgent === "Cloudflare-Workers")
    return { name: "workerd", loadsNodeAddons: false };
  // Bun and Deno set process.versions.node too: they were ruled out above.
  if (global.process?.versions?.node !== undefined) return { name: "Node.js", loadsNodeAddons: true };
  return { name: "this JavaScript runtime", loadsNodeAddons: false };
}

/**
 * Whether code mode can strip TypeScript's types on `runtime`: esbuild, which strips them, runs as a
 * process of its own, and workerd starts no process (Deno does, given --allow-run). Where it cannot,
 * the model is told to write JavaScript, and code that is not is refused saying so.
 */
export function stripsTypeScript(runtime: Runtime): boolean {
  return runtime.name !== "workerd";
}
