/** A tiny in-memory TypeScript checker: the diagnostics the real compiler reports for declarations in use. */

import ts from "typescript";

const compilerOptions: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  lib: ["lib.es2022.d.ts"],
  types: [],
  skipLibCheck: true,
};
const libCache = new Map<string, ts.SourceFile | undefined>();

/** The diagnostics TypeScript reports for one in-memory file, as readable messages. */
export function diagnose(code: string): string[] {
  const fileName = "/virtual/main.ts";
  const host = ts.createCompilerHost(compilerOptions);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, languageVersion, ...rest) => {
    if (name === fileName) return ts.createSourceFile(name, code, languageVersion, true);
    if (!libCache.has(name)) libCache.set(name, getSourceFile.call(host, name, languageVersion, ...rest));
    return libCache.get(name);
  };
  host.fileExists = (name) => name === fileName || fileExists.call(host, name);
  host.readFile = (name) => (name === fileName ? code : readFile.call(host, name));
  const program = ts.createProgram([fileName], compilerOptions, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}

/** Declarations plus a usage snippet inside an async function, as the model's code would run. */
export function checkUsage(declarations: string, usage: string): string[] {
  return diagnose(`${declarations}\nexport async function main() {\n${usage}\n}\n`);
}
