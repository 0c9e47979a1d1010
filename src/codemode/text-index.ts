/**
 * An index of texts (a run's labelled results) that answers "does this string share a piece of at least
 * `minChars` characters with one of them, and with which": the texts' aligned windows of `minChars / 2`
 * characters (at 0, w, 2w, …) are hashed into a table of positions, once, as the texts are added. Any
 * common piece of `minChars` holds one of those windows whole, so a query hashes the string's window at
 * each of its positions (rolling the hash), and widens each hit both ways: a lookup per character of the
 * string, whatever the size of the texts, and an index an eighth of their size.
 */

/** The most characters one index holds (about 12 bytes each); texts past it are searched directly. */
const MAX_INDEXED_CHARS = 2_000_000;

/** Of one aligned half, how many of its places in the texts are looked at. */
const MAX_OCCURRENCES = 64;

/** Texts, each with an owner, searchable for shared pieces (see the file's comment). */
export class TextIndex<Owner> {
  readonly #minChars: number;
  readonly #window: number;
  readonly #texts: string[] = [];
  readonly #owners: Owner[] = [];
  /** The position of each text's first character in the index (texts are one after the other). */
  readonly #starts: number[] = [];
  /** Texts beyond {@link MAX_INDEXED_CHARS}: searched with indexOf. */
  readonly #unindexed: { text: string; owner: Owner }[] = [];
  #length = 0;
  /** Hash bucket → the last position whose window hashed there, or -1. */
  #heads = new Int32Array(0);
  /** Position → the previous position in its bucket, or -1. */
  #next = new Int32Array(0);

  constructor(minChars: number) {
    this.#minChars = minChars;
    this.#window = Math.max(1, Math.floor(minChars / 2));
  }

  /** Adds `text`, owned by `owner`. */
  add(text: string, owner: Owner): void {
    if (this.#length + text.length > MAX_INDEXED_CHARS) {
      this.#unindexed.push({ text, owner });
      return;
    }
    const start = this.#length;
    this.#texts.push(text);
    this.#owners.push(owner);
    this.#starts.push(start);
    this.#length += text.length;
    this.#grow();
    this.#insertAll(text, start);
  }

  /** The owner of a text that shares a piece of at least `minChars` with `value`, among those `accept`s. */
  find(value: string, accept: (owner: Owner) => boolean): Owner | undefined {
    const window = this.#window;
    if (value.length < this.#minChars) return undefined;
    const heads = this.#heads;
    const mask = heads.length - 1;
    const out = powerOf31(window);
    let hash = 0;
    for (let i = 0; mask >= 0 && i < value.length; i++) {
      hash = (Math.imul(hash, 31) + value.charCodeAt(i)) | 0;
      if (i >= window) hash = (hash - Math.imul(value.charCodeAt(i - window), out)) | 0;
      if (i < window - 1) continue;
      const start = i - window + 1;
      let at = heads[mixed(hash) & mask]!;
      for (let seen = 0; at !== -1 && seen < MAX_OCCURRENCES; seen++, at = this.#next[at]!) {
        const which = this.#textAt(at);
        const owner = this.#owners[which]!;
        if (!accept(owner)) continue;
        const text = this.#texts[which]!;
        if (sharedAround(value, start, text, at - this.#starts[which]!, window) >= this.#minChars)
          return owner;
      }
    }
    for (const { text, owner } of this.#unindexed) {
      if (accept(owner) && sharesDirectly(value, text, window, this.#minChars)) return owner;
    }
    return undefined;
  }

  /** Which text holds position `at` (a binary search over their starts). */
  #textAt(at: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.#starts[mid]! <= at) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  /** Inserts the aligned windows of `text` (at 0, w, 2w, …), which starts at `start` in the index. */
  #insertAll(text: string, start: number): void {
    const heads = this.#heads;
    const next = this.#next;
    const mask = heads.length - 1;
    const window = this.#window;
    for (let p = 0; p + window <= text.length; p += window) {
      const bucket = hashAt(text, p, window) & mask;
      next[start + p] = heads[bucket]!;
      heads[bucket] = start + p;
    }
  }

  /** Makes room for {@link #length} positions: the table at least twice as large, rehashed when it grows. */
  #grow(): void {
    if (this.#next.length < this.#length) {
      const next = new Int32Array(Math.max(1024, this.#length * 2));
      next.set(this.#next);
      this.#next = next;
    }
    const windows = Math.ceil(this.#length / this.#window);
    if (this.#heads.length >= windows * 2 && this.#heads.length > 0) return;
    let size = 1024;
    while (size < windows * 2) size *= 2;
    this.#heads = new Int32Array(size).fill(-1);
    this.#next.fill(-1);
    // The text being added is inserted by add() itself.
    for (let i = 0; i < this.#texts.length - 1; i++) this.#insertAll(this.#texts[i]!, this.#starts[i]!);
  }
}

function hashAt(text: string, at: number, length: number): number {
  let hash = 0;
  for (let i = at; i < at + length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return mixed(hash);
}

/** 31 to the power `n`: what the character leaving a rolled window weighs in its hash. */
function powerOf31(n: number): number {
  let power = 1;
  for (let i = 0; i < n; i++) power = Math.imul(power, 31);
  return power;
}

/** Spreads a polynomial hash's bits into the low ones, which pick the bucket. */
function mixed(hash: number): number {
  const spread = Math.imul(hash ^ (hash >>> 15), 0x2c1b3c6d);
  return spread ^ (spread >>> 12);
}

/**
 * How long the piece shared by `value` and `text` is around `value[start..start+window]` found at
 * `text[at..]` (0 when the window itself differs: a hash collision).
 */
function sharedAround(value: string, start: number, text: string, at: number, window: number): number {
  for (let i = 0; i < window; i++) if (value.charCodeAt(start + i) !== text.charCodeAt(at + i)) return 0;
  let left = 0;
  while (left < start && left < at && value[start - left - 1] === text[at - left - 1]) left++;
  let right = window;
  while (
    start + right < value.length &&
    at + right < text.length &&
    value[start + right] === text[at + right]
  )
    right++;
  return left + right;
}

/** {@link TextIndex.find} for one text without an index: each aligned half looked for with indexOf. */
function sharesDirectly(value: string, text: string, window: number, minChars: number): boolean {
  for (let start = 0; start + window <= value.length; start += window) {
    const piece = value.slice(start, start + window);
    let at = text.indexOf(piece);
    for (let seen = 0; at !== -1 && seen < MAX_OCCURRENCES; seen++) {
      if (sharedAround(value, start, text, at, window) >= minChars) return true;
      at = text.indexOf(piece, at + 1);
    }
  }
  return false;
}
