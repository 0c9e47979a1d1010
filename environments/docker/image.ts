/**
 * The sandbox container image, built with no registry: a `FROM scratch` image holding this machine's own
 * node binary and the shared libraries it and isolated-vm's native addon load (as `ldd` lists them), the
 * sandbox-host program bundled into one file, and isolated-vm (in the layout of its major: see
 * isolated-vm-files.ts). It runs as a non-root user. With a
 * registry, `images/Dockerfile.node` builds an equivalent image on a Node base image instead.
 */

import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { UserError } from "../../common/errors.js";
import { ownFile } from "../../common/package-files.js";
import { cordonVersion } from "../../common/version.js";
import { PROTOCOL_VERSION } from "../../sandbox/contract/index.js";
import type { DockerConnection } from "./connection.js";
import { connectDocker, engineName } from "./dockerode.js";
import { isolatedVmFiles } from "./isolated-vm-files.js";

/** The user (uid:gid) sandbox containers run as. */
export const SANDBOX_USER = "10001:10001";

/** Where the program and isolated-vm live inside the image. */
const APP_DIR = "/cordon";

/** The image tag this version of cordon runs: its version and the wire protocol's. */
export const SANDBOX_IMAGE = `cordon-sandbox:${cordonVersion()}-p${PROTOCOL_VERSION}`;

/** The command that builds the image, for error messages. */
export const IMAGE_BUILD_COMMAND = "npx cordon image build";

/** Options of {@link buildSandboxImage}. */
export interface ImageBuildOptions {
  /** The engine to build on (each engine keeps its own images). Default: the local engine. */
  connection?: DockerConnection;
  /** Default {@link SANDBOX_IMAGE}. */
  tag?: string;
  /** Each line of the engine's build output. */
  onProgress?: (line: string) => void;
}

/** Builds the sandbox image on one engine from this machine's node binary; resolves with its tag. */
export async function buildSandboxImage(options: ImageBuildOptions = {}): Promise<{ tag: string }> {
  const tag = options.tag ?? SANDBOX_IMAGE;
  const docker = connectDocker(options.connection);
  // Before anything is laid out: dockerode packs the build folder while it sends it, and a build that
  // fails to connect would leave that packing to fail (and crash the process) once the folder is removed.
  try {
    await docker.ping();
  } catch (error) {
    throw new Error(
      `Cannot reach ${engineName(options.connection ?? {})} to build ${tag}: ${error instanceof Error ? error.message : String(error)}. Start the engine (on a machine like the project's CI, make docker-engine does), or point DOCKER_HOST at one.`,
    );
  }
  const context = mkdtempSync(join(tmpdir(), "cordon-image-"));
  try {
    await assembleRootfs(join(context, "rootfs"));
    writeFileSync(
      join(context, "Dockerfile"),
      [
        "FROM scratch",
        "COPY rootfs/ /",
        `USER ${SANDBOX_USER}`,
        "WORKDIR /tmp",
        `ENTRYPOINT ["/usr/local/bin/node", "--no-node-snapshot", "${APP_DIR}/sandbox-host.mjs"]`,
        "",
      ].join("\n"),
    );
    const stream = await docker.buildImage(
      { context, src: ["Dockerfile", "rootfs"] },
      { t: tag, labels: { "cordon.image": "sandbox", "cordon.protocol": String(PROTOCOL_VERSION) } },
    );
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(
        stream,
        (error: Error | null, output: { error?: string }[]) => {
          const failed = error?.message ?? output.find((entry) => entry.error)?.error;
          if (failed)
            reject(new Error(`Building ${tag} on ${engineName(options.connection ?? {})} failed: ${failed}`));
          else resolve();
        },
        (event: { stream?: string; status?: string }) => {
          const line = (event.stream ?? event.status ?? "").trim();
          if (line) options.onProgress?.(line);
        },
      );
    });
    return { tag };
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

/**
 * Lays out the image's file system in `root`: node, its libraries, the bundled sandbox-host program,
 * isolated-vm, and the files a non-root user needs.
 */
async function assembleRootfs(root: string): Promise<void> {
  const node = realNodeBinary();
  const isolatedVm = isolatedVmFiles(isolatedVmDir());
  place(node, root, "/usr/local/bin/node", 0o755);
  for (const library of new Set([...sharedLibraries(node), ...sharedLibraries(isolatedVm.addon)])) {
    place(library, root, library, 0o755);
  }
  const modules = join(root, APP_DIR, "node_modules");
  for (const file of isolatedVm.isolatedVm.files) {
    place(join(isolatedVm.isolatedVm.dir, file), join(modules, "isolated-vm"), file, 0o644);
  }
  // Beside isolated-vm, where its require("node-gyp-build") finds it.
  const { loader } = isolatedVm;
  if (loader) {
    for (const file of loader.files)
      place(join(loader.dir, file), join(modules, "node-gyp-build"), file, 0o644);
  }
  const { build } = await import("esbuild");
  const bundle = await build({
    entryPoints: [hostMainEntry()],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: ["isolated-vm"],
    write: false,
    logLevel: "silent",
  });
  mkdirSync(join(root, APP_DIR), { recursive: true });
  writeFileSync(join(root, APP_DIR, "sandbox-host.mjs"), bundle.outputFiles[0]!.contents, { mode: 0o644 });
  mkdirSync(join(root, "etc"), { recursive: true });
  writeFileSync(
    join(root, "etc/passwd"),
    "root:x:0:0::/:/sbin/nologin\nsandbox:x:10001:10001::/tmp:/sbin/nologin\n",
  );
  writeFileSync(join(root, "etc/group"), "root:x:0:\nsandbox:x:10001:\n");
  mkdirSync(join(root, "tmp"), { recursive: true, mode: 0o1777 });
  chmodSync(join(root, "tmp"), 0o1777);
}

/** Copies `from` (following links) to `path` under `root`, with `mode`. */
function place(from: string, root: string, path: string, mode: number): void {
  const to = join(root, path);
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
  chmodSync(to, mode);
}

/** The shared libraries a binary loads, as `ldd` lists them (absolute paths, the loader included). */
function sharedLibraries(binary: string): string[] {
  let listing: string;
  try {
    listing = execFileSync("ldd", [binary], { encoding: "utf8" });
  } catch (error) {
    throw new UserError(
      `Building the sandbox image without a registry needs Linux with ldd, to find the libraries of ${binary} (${error instanceof Error ? error.message : String(error)}). With a registry, build images/Dockerfile.node instead.`,
    );
  }
  const paths: string[] = [];
  for (const line of listing.split("\n")) {
    const match = /=>\s*(\/\S+)|^\s*(\/\S+)/.exec(line);
    const path = match?.[1] ?? match?.[2];
    if (path) paths.push(path);
  }
  return paths;
}

/** This process's node binary with every link resolved (a version manager's shim is a link). */
function realNodeBinary(): string {
  return realpathSync(process.execPath);
}

function isolatedVmDir(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve("isolated-vm/package.json"));
  } catch {
    throw new UserError(
      "Building the sandbox image needs the isolated-vm package: install it with `npm install isolated-vm`.",
    );
  }
}

/** The sandbox-host program's entry: the built file of the package, or its TypeScript source. */
function hostMainEntry(): string {
  const program = ownFile("sandbox/program/main.js", "sandbox/program/main.ts");
  if (existsSync(program.path)) return program.path;
  throw new UserError("The sandbox-host program is missing from this installation of cordon; reinstall it.");
}
