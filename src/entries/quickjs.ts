/**
 * `cordon/quickjs`: the QuickJS environment: the model's code in QuickJS compiled to WebAssembly, in
 * the agent's own process. No native addon and no compiler; it needs the optional packages
 * `quickjs-emscripten-core` and `@jitl/quickjs-wasmfile-release-sync`.
 */

export {
  QUICKJS_ISOLATION,
  type QuickJSEnvironmentOptions,
  type QuickJSVariant,
  quickjsEnvironment,
} from "../../environments/quickjs/index.js";
