/**
 * The three domhandler guards the HTML readers use, read from a node's fields as domhandler's own do.
 * Importing them from domhandler would load its ESM build (and domelementtype's) with every import of
 * cordon, about 4 ms, for trees that only web_fetch and the DuckDuckGo backend ever build.
 */

import type { Element, Node, ParentNode, Text } from "domhandler";

/** True for an element node: a tag, a script or a style (domhandler's `isTag`). */
export function isTag(node: Node): node is Element {
  return node.type === "tag" || node.type === "script" || node.type === "style";
}

/** True for a text node (domhandler's `isText`). */
export function isText(node: Node): node is Text {
  return node.type === "text";
}

/** True for a node that has children of its own (domhandler's `hasChildren`). */
export function hasChildren(node: Node): node is ParentNode {
  return Object.hasOwn(node, "children");
}
