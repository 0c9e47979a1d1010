/** Stripe: customers, charges, payment intents, refunds, subscriptions, invoices, payouts. */

import type { ToolRow } from "./define.js";

const customer = "Customer id, e.g. cus_123";

export const STRIPE: readonly ToolRow[] = [
  [
    "list_customers",
    "List Stripe customers, newest first, optionally filtered by email.",
    { "email?": "Exact email", "limit?": "int: Page size" },
  ],
  [
    "get_customer",
    "Get a Stripe customer with default payment method, balance and metadata.",
    { customer_id: customer },
  ],
  [
    "create_customer",
    "Create a Stripe customer with name, email and metadata.",
    { email: "Email", "name?": "Full name", "metadata?": "JSON object of key/values" },
  ],
  [
    "update_customer",
    "Update a customer's email, name, address or default payment method.",
    { customer_id: customer, "email?": "New email", "name?": "New name" },
  ],
  [
    "delete_customer",
    "Delete a Stripe customer and cancel their active subscriptions.",
    { customer_id: customer },
  ],
  [
    "search_customers",
    "Search customers with Stripe's query language on email, name, phone or metadata.",
    { query: "e.g. \"name:'Ada Lovelace'\"" },
  ],
  [
    "list_charges",
    "List charges, optionally for one customer or in a date range, with status and amount.",
    { "customer_id?": customer, "created_after?": "Unix time" },
  ],
  [
    "get_charge",
    "Get one charge with amount, currency, status, card details and failure reason.",
    { charge_id: "Charge id, e.g. ch_123" },
  ],
  [
    "create_payment_intent",
    "Create a PaymentIntent to collect a payment from a customer.",
    {
      amount: "int: Amount in the smallest currency unit",
      currency: "Three-letter currency code",
      "customer_id?": customer,
      "confirm?": "bool: Confirm immediately with the default payment method",
    },
  ],
  [
    "capture_payment_intent",
    "Capture the funds of an authorized PaymentIntent.",
    { payment_intent_id: "PaymentIntent id", "amount?": "int: Amount to capture (default all)" },
  ],
  [
    "cancel_payment_intent",
    "Cancel a PaymentIntent that has not succeeded yet.",
    { payment_intent_id: "PaymentIntent id" },
  ],
  [
    "list_payment_intents",
    "List PaymentIntents with their status (requires_payment_method, succeeded, canceled).",
    { "customer_id?": customer },
  ],
  [
    "create_refund",
    "Refund a charge or PaymentIntent in full or in part.",
    {
      "charge_id?": "Charge to refund",
      "payment_intent_id?": "Or the PaymentIntent",
      "amount?": "int: Partial amount; omit for a full refund",
      "reason?": "duplicate|fraudulent|requested_by_customer: Reason",
    },
  ],
  [
    "list_refunds",
    "List refunds, optionally for one charge, with their status.",
    { "charge_id?": "Only refunds of this charge" },
  ],
  [
    "list_payment_methods",
    "List a customer's saved cards and bank accounts.",
    { customer_id: customer, "type?": "card|sepa_debit|us_bank_account: Kind" },
  ],
  [
    "detach_payment_method",
    "Remove a saved payment method from a customer.",
    { payment_method_id: "Payment method id" },
  ],
  [
    "list_subscriptions",
    "List subscriptions by customer, price or status (active, past_due, canceled, trialing).",
    { "customer_id?": customer, "status?": "active|past_due|canceled|trialing|all: Status" },
  ],
  [
    "get_subscription",
    "Get a subscription with its items, current period, trial and cancellation settings.",
    { subscription_id: "Subscription id" },
  ],
  [
    "create_subscription",
    "Subscribe a customer to one or more prices, with an optional trial.",
    { customer_id: customer, price_ids: "string[]: Price ids", "trial_days?": "int: Trial length" },
  ],
  [
    "update_subscription",
    "Change a subscription's prices or quantity, with proration.",
    { subscription_id: "Subscription id", "price_id?": "New price", "quantity?": "int: New quantity" },
  ],
  [
    "cancel_subscription",
    "Cancel a subscription now or at the end of the current billing period.",
    { subscription_id: "Subscription id", "at_period_end?": "bool: Wait until the period ends" },
  ],
  [
    "list_invoices",
    "List invoices by customer, subscription or status (draft, open, paid, uncollectible, void).",
    { "customer_id?": customer, "status?": "draft|open|paid|uncollectible|void: Status" },
  ],
  [
    "get_invoice",
    "Get one invoice with its line items, totals, tax, and hosted payment link.",
    { invoice_id: "Invoice id" },
  ],
  [
    "create_invoice",
    "Create a draft invoice for a customer from their pending invoice items.",
    { customer_id: customer, "days_until_due?": "int: Payment terms" },
  ],
  [
    "finalize_invoice",
    "Finalize a draft invoice so it can be paid and is emailed to the customer.",
    { invoice_id: "Invoice id" },
  ],
  ["void_invoice", "Void a finalized invoice that should not be paid.", { invoice_id: "Invoice id" }],
  [
    "list_invoice_items",
    "List the line items of an invoice or the pending items of a customer.",
    { "invoice_id?": "Invoice id", "customer_id?": customer },
  ],
  ["list_products", "List products in the Stripe catalog.", { "active?": "bool: Only active products" }],
  [
    "list_prices",
    "List prices, optionally of one product, with amount, currency and billing interval.",
    { "product_id?": "Product id" },
  ],
  [
    "create_price",
    "Create a one-time or recurring price for a product.",
    {
      product_id: "Product id",
      unit_amount: "int: Amount in cents",
      currency: "Currency",
      "interval?": "day|week|month|year: Billing interval",
    },
  ],
  [
    "create_coupon",
    "Create a coupon: a percentage or amount off, once, repeating or forever.",
    {
      "percent_off?": "number: Percent off",
      "amount_off?": "int: Amount off in cents",
      duration: "once|repeating|forever: How long it applies",
    },
  ],
  ["get_balance", "Get your Stripe account balance: available and pending funds per currency.", {}],
  [
    "list_payouts",
    "List payouts to your bank account with arrival dates and status.",
    { "status?": "pending|paid|failed|canceled: Status" },
  ],
  [
    "list_disputes",
    "List disputes (chargebacks) with their reason, amount, status and evidence deadline.",
    { "status?": "needs_response|under_review|won|lost: Status" },
  ],
  [
    "submit_dispute_evidence",
    "Submit evidence to contest a dispute.",
    { dispute_id: "Dispute id", evidence: "JSON object of evidence fields" },
  ],
  [
    "list_balance_transactions",
    "List the transactions that make up your balance: charges, refunds, fees, payouts.",
    { "type?": "charge|refund|payout|stripe_fee: Kind" },
  ],
];
