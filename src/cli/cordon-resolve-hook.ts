/**
 * A Node module hook (see `module.register`): `import ... from "cordon"` (and its subpaths) inside a tools
 * module resolves to the very copy of cordon that runs the command. A second copy would have its own
 * `Toolset` and `ToolError` classes, so a tool's deliberate messages and hints would be lost.
 */

type NextResolve = (specifier: string, context: unknown) => Promise<unknown>;

let targets: Readonly<Record<string, string>> = {};

/** Receives the URL of each specifier to redirect. */
export function initialize(data: { targets: Record<string, string> }): void {
  targets = data.targets;
}

/** Redirects `cordon` and `cordon/<subpath>`; everything else resolves as usual. */
export async function resolve(
  specifier: string,
  context: unknown,
  nextResolve: NextResolve,
): Promise<unknown> {
  const target = Object.hasOwn(targets, specifier) ? targets[specifier] : undefined;
  if (target !== undefined) return { url: target, shortCircuit: true };
  return nextResolve(specifier, context);
}
