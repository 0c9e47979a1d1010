// Builds the sandbox image on the default Docker engine and, when it runs, on the second engine the
// tests use (each engine keeps its own images). No registry is needed: see environments/docker/image.ts.
import { existsSync } from "node:fs";
import { buildSandboxImage, SANDBOX_IMAGE } from "../environments/docker/index.js";

const SECOND = process.env.CORDON_SECOND_DOCKER_SOCKET ?? "/run/cordon-docker-2/docker.sock";
const engines: { socketPath?: string }[] = [{}];
if (existsSync(SECOND)) engines.push({ socketPath: SECOND });

for (const connection of engines) {
  const where = connection.socketPath ?? "the default engine";
  const started = performance.now();
  await buildSandboxImage({ connection });
  console.log(
    `image: ${SANDBOX_IMAGE} built on ${where} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
