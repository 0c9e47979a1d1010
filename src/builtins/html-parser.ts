/**
 * htmlparser2, loaded on first use: web_fetch and the DuckDuckGo backend read HTML, but most processes
 * that import cordon never parse a page, and htmlparser2 with its entity tables is a large import. Its
 * CommonJS build is loaded (synchronously); the trees it builds are plain domhandler nodes, which the
 * domhandler helpers read by their fields.
 */

import { createRequire } from "node:module";

type HtmlParser2 = typeof import("htmlparser2");

let loaded: HtmlParser2 | undefined;

/** The htmlparser2 module (loaded the first time). */
export function htmlParser(): HtmlParser2 {
  loaded ??= createRequire(import.meta.url)("htmlparser2") as HtmlParser2;
  return loaded;
}
