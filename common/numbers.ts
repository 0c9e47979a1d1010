/**
 * Numbers in text meant for people and models. ICU's number formatting costs 15-30 ms the first time a
 * process uses it, which a command that only runs code would pay for one message: these helpers do
 * without it.
 */

/**
 * `n` with the digits of its integer part grouped in threes, as English text writes them: 12345 →
 * "12,345". The same text as `n.toLocaleString("en-US")`, which it falls back to for a fraction or a
 * number too large to write out.
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  const digits = String(Math.abs(n));
  let grouped = digits.slice(0, digits.length % 3 || 3);
  for (let at = grouped.length; at < digits.length; at += 3) grouped += `,${digits.slice(at, at + 3)}`;
  return n < 0 || Object.is(n, -0) ? `-${grouped}` : grouped;
}
