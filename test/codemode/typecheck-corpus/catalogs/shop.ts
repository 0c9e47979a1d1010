/**
 * The shop example's tools (examples/shop/tools.ts) as they are, as a corpus catalog. The example keeps
 * its orders and refunds in module state, so each reset imports a new instance of the module (a distinct
 * URL is a distinct module): every program meets the same 24 orders, none refunded yet.
 */

import type { AnyTool, Toolset } from "../../../../src/index.js";
import { type CorpusCatalog, countingCatalog } from "./catalog.js";

const SHOP_TOOLS = new URL("../../../../examples/shop/tools.ts", import.meta.url).href;

let instances = 0;

async function freshShop(): Promise<Toolset> {
  const module: { default?: unknown } = await import(
    /* @vite-ignore */ `${SHOP_TOOLS}?instance=${++instances}`
  );
  const tools = module.default as { list?: () => AnyTool[] } | undefined;
  if (typeof tools?.list !== "function") {
    throw new Error(`${SHOP_TOOLS} no longer exports a Toolset as its default export.`);
  }
  return tools as Toolset;
}

/** The shop catalog: find_customers, list_orders, get_order, refund_order (the effect), list_refunds. */
export function shopCatalog(): Promise<CorpusCatalog> {
  return countingCatalog("shop", freshShop);
}
