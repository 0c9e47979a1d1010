/** Shop: orders, order items, returns, products, inventory, shipments. */

import type { ToolRow } from "./define.js";

const order = "Order id, e.g. A1234";

export const SHOP: readonly ToolRow[] = [
  [
    "list_orders",
    "List orders by customer, status or date range, newest first, with totals.",
    {
      "customer_id?": "Customer id",
      "status?": "pending|paid|shipped|delivered|cancelled|refunded: Status",
      "from?": "Placed on or after (YYYY-MM-DD)",
      "to?": "Placed on or before (YYYY-MM-DD)",
    },
  ],
  [
    "get_order",
    "Get one order with its customer, shipping address, payment status and totals.",
    { order_id: order },
  ],
  [
    "list_order_items",
    "List the line items of one order: product, SKU, quantity and price.",
    { order_id: order },
  ],
  [
    "create_order",
    "Place an order for a customer with items and a shipping address.",
    { customer_id: "Customer id", items: "JSON array of { sku, quantity }", "shipping_address?": "Address" },
  ],
  [
    "cancel_order",
    "Cancel an order that has not shipped yet and release its stock.",
    { order_id: order, "reason?": "Why" },
  ],
  [
    "refund_order",
    "Refund an order fully or for some of its items, back to the original payment.",
    { order_id: order, "item_ids?": "string[]: Only these items", "reason?": "Reason for the refund" },
  ],
  [
    "update_order_address",
    "Change the shipping address of an order before it ships.",
    { order_id: order, address: "New address" },
  ],
  ["add_order_note", "Add an internal note to an order.", { order_id: order, note: "Note" }],
  [
    "create_return",
    "Open a return (RMA) for items of a delivered order and email a return label.",
    {
      order_id: order,
      item_ids: "string[]: Items coming back",
      reason: "damaged|wrong_item|not_needed|other: Reason",
    },
  ],
  [
    "list_returns",
    "List return requests by status (requested, in_transit, received, refunded).",
    { "status?": "requested|in_transit|received|refunded: Status" },
  ],
  [
    "list_products",
    "List products in the shop catalog with price, SKU and stock.",
    { "category?": "Category", "query?": "Words in the title" },
  ],
  [
    "get_product",
    "Get one product with its variants, images, description and price.",
    { product_id: "Product id" },
  ],
  [
    "update_product_price",
    "Change the price of a product or one of its variants.",
    { product_id: "Product id", price: "number: New price", "variant_id?": "Variant" },
  ],
  ["get_inventory", "Get stock levels of SKUs per warehouse.", { skus: "string[]: SKUs" }],
  [
    "adjust_inventory",
    "Adjust the stock of a SKU in a warehouse up or down, with a reason.",
    { sku: "SKU", warehouse: "Warehouse code", delta: "int: Change in units", "reason?": "Why" },
  ],
  [
    "list_low_stock",
    "List SKUs whose stock is below their reorder point.",
    { "warehouse?": "Warehouse code" },
  ],
  [
    "create_shipment",
    "Create a shipment for an order with a carrier and buy its label.",
    { order_id: order, carrier: "ups|fedex|dhl|usps: Carrier", "service?": "Service level" },
  ],
  [
    "track_shipment",
    "Get the tracking status and events of a shipment.",
    { tracking_number: "Tracking number" },
  ],
  [
    "list_customers",
    "List shop customers with their order count and lifetime spend.",
    { "query?": "Name or email" },
  ],
  [
    "get_customer_orders_summary",
    "Summarize a customer's orders: count, total spent, last order date, returns.",
    { customer_id: "Customer id" },
  ],
  [
    "apply_discount_code",
    "Apply a discount code to an unpaid order.",
    { order_id: order, code: "Discount code" },
  ],
  [
    "get_sales_report",
    "Get revenue, order count and average order value per day for a date range.",
    { from: "Start date", to: "End date" },
  ],
];
