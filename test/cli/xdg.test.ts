// The XDG base directories of the cordon command: an absolute XDG_CACHE_HOME / XDG_CONFIG_HOME is used,
// anything else is ignored (the XDG spec: relative paths are invalid), for the cache and the key alike.
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cordonCacheDir } from "../../src/cli/cache-dir.js";
import { checkpointKeyFile } from "../../src/cli/checkpoint-key.js";
import { xdgBaseDir } from "../../src/cli/xdg.js";

describe("XDG base directories", () => {
  it("an absolute XDG_CACHE_HOME or XDG_CONFIG_HOME is used as it is", () => {
    expect(xdgBaseDir({ XDG_CACHE_HOME: "/srv/cache" }, "XDG_CACHE_HOME")).toBe("/srv/cache");
    expect(xdgBaseDir({ XDG_CONFIG_HOME: "/srv/config" }, "XDG_CONFIG_HOME")).toBe("/srv/config");
  });

  it("unset, empty or relative, each is the default under the home folder", () => {
    for (const value of [undefined, "", "cache", "./cache", "../elsewhere"]) {
      expect(xdgBaseDir({ XDG_CACHE_HOME: value }, "XDG_CACHE_HOME"), String(value)).toBe(
        join(homedir(), ".cache"),
      );
      expect(xdgBaseDir({ XDG_CONFIG_HOME: value }, "XDG_CONFIG_HOME"), String(value)).toBe(
        join(homedir(), ".config"),
      );
    }
  });

  it("the tools cache and the checkpoint key file agree: a relative path puts neither where the command runs", () => {
    const relative = { XDG_CACHE_HOME: "here", XDG_CONFIG_HOME: "here" };
    expect(cordonCacheDir(relative)).toBe(join(homedir(), ".cache", "cordon"));
    expect(checkpointKeyFile(relative)).toBe(join(homedir(), ".config", "cordon", "checkpoint.key"));
    const absolute = { XDG_CACHE_HOME: "/srv/cache", XDG_CONFIG_HOME: "/srv/config" };
    expect(cordonCacheDir(absolute)).toBe("/srv/cache/cordon");
    expect(checkpointKeyFile(absolute)).toBe("/srv/config/cordon/checkpoint.key");
  });
});
