// A strict check that a text is well-formed XML as the charts write it: one root element, every tag
// closed in order, attributes quoted, no stray "<" or "&" in text. It returns the elements it met (name
// and attributes), so that a test can count points and labels; it throws with the offset on a fault.

/** One element of a checked document. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  /** The element's own text (entities decoded), when it has any. */
  text: string;
}

const NAME = /^[A-Za-z_][\w.:-]*/;
const ENTITY = /^&(amp|lt|gt|quot|apos|#\d+|#x[\da-fA-F]+);/;
const DECODE: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function parseAttributes(source: string, at: number): Record<string, string> {
  const attributes: Record<string, string> = {};
  const re = /\s+([A-Za-z_][\w.:-]*)="([^"<]*)"/y;
  let offset = 0;
  while (source.slice(offset).trim() !== "") {
    re.lastIndex = offset;
    const match = re.exec(source);
    if (!match) throw new Error(`not well-formed XML at ${at}: bad attribute in <${source}>`);
    if (match[1]! in attributes) throw new Error(`not well-formed XML at ${at}: attribute ${match[1]} twice`);
    attributes[match[1]!] = match[2]!;
    offset = re.lastIndex;
  }
  return attributes;
}

function checkText(text: string, at: number): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "&") {
      out += text[i];
      continue;
    }
    const entity = ENTITY.exec(text.slice(i));
    if (!entity) throw new Error(`not well-formed XML at ${at + i}: a bare "&"`);
    out +=
      DECODE[entity[1]!] ?? String.fromCodePoint(Number(entity[1]!.replace("#x", "0x").replace("#", "")));
    i += entity[0].length - 1;
  }
  return out;
}

/** The elements of `xml`, in document order; throws unless it is well-formed. */
export function checkWellFormedXml(xml: string): XmlElement[] {
  const elements: XmlElement[] = [];
  const open: XmlElement[] = [];
  let roots = 0;
  let i = 0;
  while (i < xml.length) {
    const lt = xml.indexOf("<", i);
    const text = xml.slice(i, lt === -1 ? xml.length : lt);
    if (text.includes(">")) throw new Error(`not well-formed XML at ${i}: a bare ">" in text`);
    const decoded = checkText(text, i);
    if (open.length === 0 && decoded.trim() !== "")
      throw new Error(`not well-formed XML at ${i}: text outside the root`);
    if (open.length > 0) open.at(-1)!.text += decoded;
    if (lt === -1) break;
    const gt = xml.indexOf(">", lt);
    if (gt === -1) throw new Error(`not well-formed XML at ${lt}: a tag that does not end`);
    const tag = xml.slice(lt + 1, gt);
    if (tag.startsWith("/")) {
      const name = tag.slice(1).trim();
      const top = open.pop();
      if (top?.name !== name)
        throw new Error(`not well-formed XML at ${lt}: </${name}> closes <${top?.name ?? "nothing"}>`);
    } else {
      const selfClosing = tag.endsWith("/");
      const body = selfClosing ? tag.slice(0, -1) : tag;
      const name = NAME.exec(body)?.[0];
      if (!name) throw new Error(`not well-formed XML at ${lt}: a tag without a name`);
      if (open.length === 0 && ++roots > 1)
        throw new Error(`not well-formed XML at ${lt}: a second root element`);
      const element = { name, attributes: parseAttributes(body.slice(name.length), lt), text: "" };
      elements.push(element);
      if (!selfClosing) open.push(element);
    }
    i = gt + 1;
  }
  if (open.length > 0) throw new Error(`not well-formed XML: <${open.at(-1)!.name}> is never closed`);
  if (roots !== 1) throw new Error("not well-formed XML: no root element");
  return elements;
}
