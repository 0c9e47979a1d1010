// What a person sees before approving a call. The attack: model code padded a harmless memo with spaces
// so that a prompt cut at 400 characters showed only `{"memo":"Monthly invoice #4471…`, and after `y`
// 98,000 went to the attacker's account.
import { describe, expect, it } from "vitest";
import {
  APPROVAL_MARKS_PER_CHAR,
  APPROVAL_NESTED_ITEMS,
  APPROVAL_STRING_CHARS,
  approvalDetails,
  approvalLines,
  visibleText,
} from "../../src/dispatch/preview.js";

describe("what a person approves", () => {
  it("a memo padded with thousands of spaces cannot hide the amount or the account", () => {
    const memo = `Monthly invoice #4471${" ".repeat(98_000)}(paid in full)`;
    const lines = approvalLines({ memo, amount: 98_000, to_account: "DE89 3704 0044 0532 0130 00" });
    expect(lines).toEqual([
      `memo: "Monthly invoice #4471⟨98,000 spaces⟩(paid in full)"`,
      "amount: 98000",
      `to_account: "DE89 3704 0044 0532 0130 00"`,
    ]);
  });

  it("a long string keeps its start and end and says its length; every argument still has its line", () => {
    const note = `start ${"x".repeat(5_000)} end`;
    const [noteLine, amountLine] = approvalLines({ note, amount: 23 });
    expect(noteLine!.length).toBeLessThan(APPROVAL_STRING_CHARS + 40);
    expect(noteLine).toMatch(/^note: "start x+…x+ end" \(5,010 chars\)$/);
    expect(amountLine).toBe("amount: 23");
  });

  it("bidirectional overrides, invisible, control and line-breaking characters are written out", () => {
    const [line] = approvalLines({ to: "safe\u202Etnuocca-rekcatta\u200B\u0007\u2028\u00A0x\ny" });
    expect(line).toBe('to: "safe\\u{202E}tnuocca-rekcatta\\u{200B}\\u{7}\\u{2028}\\u{A0}x\\ny"');
    expect(visibleText("\u001b[2Jfake")).toBe("\\u{1B}[2Jfake");
    expect(visibleText("tag\u{E0041}s and variation\uFE0F")).toBe("tag\\u{E0041}s and variation\\u{FE0F}");
  });

  it("a key that hides characters is escaped and quoted too", () => {
    expect(approvalLines({ "amount\u202E": 1 })).toEqual(['"amount\\u{202E}": 1']);
  });

  it("the tool's approvalKeys come first, and every other argument follows", () => {
    const lines = approvalLines(
      { memo: "m", to_account: "a", amount: 5 },
      { keys: ["amount", "to_account"] },
    );
    expect(lines).toEqual(["amount: 5", 'to_account: "a"', 'memo: "m"']);
  });

  it("nested values show their first items and count the rest", () => {
    const items = Array.from({ length: APPROVAL_NESTED_ITEMS + 5 }, (_, i) => i);
    expect(approvalLines({ items })[0]).toMatch(/^items: \[0, 1, .*, 19, … 5 more items\]$/);
    expect(approvalLines({ deep: { a: { b: { c: { d: { e: 1 } } } } } })[0]).toBe(
      "deep: { a: { b: { c: { d: {… 1 key} } } } }",
    );
  });

  it("the full view shows every character, escaped, and cuts nothing", () => {
    const memo = `a${" ".repeat(20)}b\u202E`;
    const details = approvalDetails({ memo, amount: 98_000 });
    expect(details).toBe(`{\n  "memo": "a⟨20 spaces⟩b\\u{202E}",\n  "amount": 98000\n}`);
  });

  it("combining marks stacked on an account number (zalgo) cannot cover the lines around it or change a digit", () => {
    const zalgo = "\u0336\u0301\u0300".repeat(40);
    const [line] = approvalLines({ to_account: `DE89${zalgo} 3704`, amount: 5 });
    const kept = zalgo.slice(0, APPROVAL_MARKS_PER_CHAR);
    const written = [...zalgo.slice(APPROVAL_MARKS_PER_CHAR)]
      .map((mark) => `\\u{${mark.codePointAt(0)!.toString(16).toUpperCase()}}`)
      .join("");
    expect(`${line}`.startsWith(`to_account: "DE89${kept}${written.slice(0, 20)}`)).toBe(true);
    expect(line).toMatch(/ 3704" \(\d+ chars\)$/);
    // No character shows more than APPROVAL_MARKS_PER_CHAR marks, in the preview or in the full view.
    const stacked = new RegExp(`\\P{M}\\p{M}{${APPROVAL_MARKS_PER_CHAR + 1}}`, "u");
    expect(line).not.toMatch(stacked);
    expect(approvalDetails({ to_account: `DE89${zalgo}` })).not.toMatch(stacked);
    expect(approvalDetails({ to_account: `DE89${zalgo}` })).toContain(`DE89${kept}${written}`);
  });

  it("marks that sit on nothing (at the start, after an escape or a count of spaces) are written out", () => {
    expect(visibleText("\u0301a")).toBe("\\u{301}a");
    expect(visibleText("\u202E\u0336x")).toBe("\\u{202E}\\u{336}x");
    expect(visibleText(`a${" ".repeat(20)}\u0336b`)).toBe("a⟨20 spaces⟩\\u{336}b");
  });

  it("letters with their usual marks read as they are written", () => {
    const text = "Tiếng Việt (decomposed: Vie\u0323\u0302t), नमस्ते, ελληνικά, café";
    expect(visibleText(text)).toBe(text);
  });
});
