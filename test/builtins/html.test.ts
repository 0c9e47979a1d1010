// HTML to Markdown on its own: structure kept, main content chosen, hidden text dropped, URLs made
// absolute, and hostile nesting bounded.
import { describe, expect, it } from "vitest";
import { convertHtml } from "../../src/builtins/web-fetch/html.js";
import { MAX_INDENT_LEVELS, MAX_NESTING, MAX_TABLE_COLUMNS } from "../../src/builtins/web-fetch/markdown.js";
import { capNesting, MAX_HTML_DEPTH } from "../../src/builtins/web-fetch/nesting.js";

const md = (html: string, url = "https://site.example/docs/page.html") => convertHtml(html, url).markdown;

describe("convertHtml", () => {
  it("keeps headings, paragraphs, emphasis, inline code and line breaks", () => {
    expect(
      md(
        "<h1>Title</h1><h3>Sub <em>part</em></h3><p>A <strong>bold</strong> and <i>slanted</i> <code>x()</code><br>next line</p>",
      ),
    ).toBe("# Title\n\n### Sub _part_\n\nA **bold** and _slanted_ `x()`\nnext line");
  });

  it("nests lists, numbers ordered ones from start, and indents continuation lines", () => {
    expect(md('<ol start="3"><li>three</li><li>four<ul><li>inner</li></ul></li></ol>')).toBe(
      "3. three\n4. four\n   - inner",
    );
  });

  it("writes GFM tables, escaping pipes and filling short rows and colspans", () => {
    const html =
      "<table><thead><tr><th>A</th><th>B</th><th>C</th></tr></thead><tbody>" +
      '<tr><td>1 | 2</td><td colspan="2">wide</td></tr><tr><td>short</td></tr></tbody></table>';
    expect(md(html)).toBe("| A | B | C |\n| --- | --- | --- |\n| 1 \\| 2 | wide |  |\n| short |  |  |");
  });

  it("reads a layout table (one column, or tables inside cells) as its contents", () => {
    expect(md("<table><tr><td><p>only cell</p></td></tr><tr><td>second</td></tr></table>")).toBe(
      "only cell\n\nsecond",
    );
  });

  it("fences code with its language and a fence longer than any backtick run inside", () => {
    expect(md('<pre class="lang-js"><code>const s = `a`;\nif (a &lt; b) {}</code></pre>')).toBe(
      "```js\nconst s = `a`;\nif (a < b) {}\n```",
    );
    expect(md("<pre><code>```inner```</code></pre>")).toBe("````\n```inner```\n````");
  });

  it("quotes block quotes and keeps horizontal rules", () => {
    expect(md("<blockquote><p>one</p><p>two</p></blockquote><hr><p>after</p>")).toBe(
      "> one\n>\n> two\n\n---\n\nafter",
    );
  });

  it("makes links and images absolute against <base>, and drops javascript: and data: URLs", () => {
    const html =
      '<head><base href="/root/"></head><body><p><a href="a.html">A</a> <a href="javascript:x()">JS</a> ' +
      '<a href="https://x.example/">https://x.example/</a> <a href="/p(1)">paren</a></p>' +
      '<img src="i.png" alt="I"><img src="data:image/png;base64,AA" alt="D"></body>';
    expect(md(html)).toBe(
      "[A](https://site.example/root/a.html) JS <https://x.example/> [paren](https://site.example/p%281%29)\n\n![I](https://site.example/root/i.png)",
    );
  });

  it("drops scripts, styles, forms controls and text the page hides", () => {
    const html =
      "<p>shown</p><script>var secret = 1</script><style>p{}</style><button>Click</button>" +
      '<p hidden>h1</p><p aria-hidden="true">h2</p><div style="color:red; display: none">h3</div>' +
      '<span style="visibility:hidden">h4</span><template><p>h5</p></template>';
    expect(md(html)).toBe("shown");
  });

  it("takes <main> (or role=main, or a single <article>) as the main content", () => {
    const chrome = "<header>Site</header><nav>Menu</nav><aside>Ads</aside><footer>Foot</footer>";
    expect(md(`<body>${chrome}<main><p>${"content ".repeat(20)}</p></main></body>`)).toBe(
      "content ".repeat(20).trim(),
    );
    expect(md(`<body>${chrome}<div role="main"><p>main text here</p></div></body>`)).toBe("main text here");
    expect(md(`<body>${chrome}<article><p>the article</p></article></body>`)).toBe("the article");
  });

  it("drops site chrome from the body when no landmark marks the content", () => {
    expect(md("<body><header>Site</header><nav>Menu</nav><p>Body text</p><footer>Foot</footer></body>")).toBe(
      "Body text",
    );
  });

  it("ignores a landmark holding too little of the page's text", () => {
    const html = `<body><main><p>tiny</p></main><div><p>${"real content ".repeat(50)}</p></div></body>`;
    expect(md(html)).toContain("real content");
  });

  it("reads the title, falling back to og:title", () => {
    expect(convertHtml("<title>  A   title </title><p>x</p>", "https://a.example/").title).toBe("A title");
    expect(convertHtml('<meta property="og:title" content="OG">', "https://a.example/").title).toBe("OG");
    expect(convertHtml("<p>x</p>", "https://a.example/").title).toBeUndefined();
  });

  it("lists images from img, srcset, data-src, <picture> and og:image, once each", () => {
    const html =
      '<meta property="og:image" content="/og.png"><img src="/og.png" alt="same"><img data-src="lazy.png">' +
      '<img srcset="s.png 1x, big.png 2x"><picture><source srcset="w.webp 640w, wide.webp 1920w"></picture>';
    expect(convertHtml(html, "https://a.example/d/").images).toEqual([
      { url: "https://a.example/og.png", alt: "same" },
      { url: "https://a.example/d/lazy.png" },
      { url: "https://a.example/d/big.png" },
      { url: "https://a.example/d/wide.webp" },
    ]);
  });

  it("renders nesting deeper than MAX_NESTING as plain text instead of recursing", () => {
    const deep = `${"<div><span>".repeat(MAX_NESTING)}<b>deep</b> text${"</span></div>".repeat(MAX_NESTING)}`;
    expect(md(deep)).toBe("deep text");
  });
});

describe("capNesting", () => {
  /** The deepest nesting of a page as the same tokenizer model sees it, for plain <div> pages. */
  const depthOf = (html: string) => {
    let depth = 0;
    let max = 0;
    for (const match of html.matchAll(/<(\/?)div>/g)) {
      depth += match[1] ? -1 : 1;
      max = Math.max(max, depth);
    }
    return max;
  };

  it("leaves a page within the limit untouched (the same string)", () => {
    const page = `${"<div>".repeat(MAX_HTML_DEPTH)}x${"</div>".repeat(MAX_HTML_DEPTH)}`;
    expect(capNesting(page)).toBe(page);
  });

  it("leaves out what nests deeper than the limit, contents included", () => {
    expect(capNesting("<div><div><div>deep</div>b</div>c</div>d", 2)).toBe("<div><div> b</div>c</div>d");
    const hostile = `${"<div>".repeat(100_000)}x${"</div>".repeat(100_000)}after`;
    const capped = capNesting(hostile);
    expect(depthOf(capped)).toBe(MAX_HTML_DEPTH);
    expect(capped.endsWith("after")).toBe(true);
    expect(capped).not.toContain("x");
  });

  it("a table with one very wide row is read as its contents, not padded into a grid of rows x columns", () => {
    const cells = 8_000;
    const page = `<table><tr>${"<td>c".repeat(cells)}</tr>${"<tr><td>r</td></tr>".repeat(cells)}</table>`;
    const { markdown } = convertHtml(page, "https://a/");
    // Padding every row to the widest would write 64,000,000 cells; the contents are 16,000.
    expect(markdown.length).toBeLessThan(page.length);
    expect(markdown).not.toContain("| --- |");
    const narrow = `<table>${`<tr>${"<td>c".repeat(MAX_TABLE_COLUMNS)}</tr>`.repeat(3)}</table>`;
    expect(convertHtml(narrow, "https://a/").markdown).toContain("| --- |");
  });

  it("deeply nested quotes and lists are prefixed only so deep, so the output grows with the page, not its square", () => {
    const lines = "x<br>".repeat(20_000);
    const quotes = `${"<blockquote>".repeat(99)}${lines}${"</blockquote>".repeat(99)}`;
    const quoted = convertHtml(quotes, "https://a/").markdown;
    expect(quoted.length).toBeLessThan(quotes.length * MAX_INDENT_LEVELS);
    expect(quoted).toContain(`${"> ".repeat(MAX_INDENT_LEVELS)}x`);
    expect(quoted).not.toContain(`${"> ".repeat(MAX_INDENT_LEVELS + 1)}x`);
    const lists = `${"<ul><li>".repeat(60)}${lines}${"</li></ul>".repeat(60)}`;
    expect(convertHtml(lists, "https://a/").markdown.length).toBeLessThan(lists.length * MAX_INDENT_LEVELS);
  });

  it("follows the parser's implied closes, so unclosed <p>, <li> and <td> do not count as nesting", () => {
    const page = `<div>${"<p>para".repeat(5_000)}<ul>${"<li>item".repeat(5_000)}</ul><table>${"<tr><td>a<td>b".repeat(5_000)}</table></div>`;
    expect(capNesting(page, 10)).toBe(page);
  });

  it("never lets a hidden element's or a script's content out by cutting its tag alone", () => {
    const page = `${"<div>".repeat(5)}<p style="display:none">SECRET</p><script>SCRIPT</script>${"</div>".repeat(5)}<p>ok</p>`;
    const capped = capNesting(page, 5);
    expect(capped).not.toContain("SECRET");
    expect(capped).not.toContain("SCRIPT");
    expect(
      convertHtml(page.replace(/<div>/g, "<section>").replace(/<\/div>/g, "</section>"), "https://a/")
        .markdown,
    ).toBe("ok");
  });

  it("stops the left-out region where an implied close returns to the limit", () => {
    expect(capNesting("<ul><li>1<li>2<li><ul><li>deep</ul></ul>after", 2)).toBe(
      "<ul><li>1<li>2<li> </ul>after",
    );
  });
});
