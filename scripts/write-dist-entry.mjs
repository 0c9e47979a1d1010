// tsc keeps the source layout (dist/src, dist/environments, ...); dist/index.js is the package's front door.
import { writeFileSync } from "node:fs";

writeFileSync(new URL("../dist/index.js", import.meta.url), 'export * from "./src/index.js";\n');
writeFileSync(new URL("../dist/index.d.ts", import.meta.url), 'export * from "./src/index.js";\n');
