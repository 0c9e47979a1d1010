/** A run's `tools` object. */

import { DESCRIBE_CALL, SEARCH_CALL } from "../../contract/index.js";
import { type CallPromiseType, callPromiseType } from "./call-promises.js";
import { callTool } from "./calls.js";
import { describeTool, searchTools } from "./discovery.js";
import {
  apply,
  create,
  defineProperty,
  freeze,
  getOwnPropertyDescriptor,
  keys,
  MapCtor,
  mapGet,
  mapSet,
  ProxyCtor,
  reflectGet,
  reflectHas,
  SetCtor,
  setHas,
} from "./intrinsics.js";
import { resolveName } from "./names.js";
import { bare, toText } from "./objects.js";
import type { Run } from "./types.js";

/** Keys the engine reads by itself (resolving a promise, JSON.stringify): never a repaired tool name. */
const ENGINE_KEYS = new SetCtor<string>(["then", "toJSON"]);

/**
 * A run's `tools`: one method per declared name, and any other name that the dispatcher's rule
 * resolves to exactly one tool (`tools.getOrder` for `get_order`), whose calls say which name the code
 * used. Declared names are plain own properties (no trap on the hot path); a name the object lacks is
 * looked up on its prototype, a proxy that repairs it, and names every object has (`toString`...) stay
 * what they are.
 */
export const makeTools = (owner: Run, toolNames: Record<string, string>) => {
  const repaired = new MapCtor<string, unknown>();
  const base = freeze({});
  const handler = bare({
    get(target: object, key: string | symbol, receiver: unknown): unknown {
      if (typeof key !== "string" || apply(setHas, ENGINE_KEYS, [key]) || reflectHas(target, key)) {
        return reflectGet(target, key, receiver);
      }
      const known = apply(mapGet, repaired, [key]);
      if (known !== undefined) return known;
      const realName = resolveName(owner, key);
      if (realName === undefined) return undefined;
      const holder = {
        [key](args?: unknown) {
          return callTool(owner, callPromiseType(key), key, realName, args, key === realName ? "" : key);
        },
      };
      const method = getOwnPropertyDescriptor(holder, key)!.value;
      apply(mapSet, repaired, [key, method]);
      return method;
    },
  });
  const tools: Record<string, (args?: unknown) => Promise<unknown>> = create(new ProxyCtor(base, handler));
  const codeNames = keys(toolNames);
  for (let i = 0; i < codeNames.length; i++) {
    const codeName = codeNames[i];
    const realName = toText(toolNames[codeName]);
    // Made at the tool's first call in this run (in a map of the sandbox's), then kept by the method.
    let type: CallPromiseType | undefined;
    // A method definition has the tool's own name and cannot be called with `new`.
    const holder = {
      [codeName](args?: unknown) {
        type ??= callPromiseType(codeName);
        return callTool(owner, type, codeName, realName, args, "");
      },
    };
    defineProperty(tools, codeName, bare({ value: holder[codeName], enumerable: true }));
  }
  if (owner.config.discovery !== undefined) {
    const finders = {
      $search(query: unknown, options?: unknown) {
        return searchTools(owner, query, options);
      },
      $describe(name: unknown) {
        return describeTool(owner, name);
      },
    };
    defineProperty(tools, SEARCH_CALL, bare({ value: finders.$search }));
    defineProperty(tools, DESCRIBE_CALL, bare({ value: finders.$describe }));
  }
  return freeze(tools);
};
