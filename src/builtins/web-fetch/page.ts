/**
 * What a page reader returns, and the interface a reader implements. The web_fetch tool applies the
 * character limits, the fence and the error-page cap, so a reader returns the whole text it has.
 */

/** One image of a page. */
export interface PageImage {
  /** Absolute http(s) URL. */
  url: string;
  /** The alt text (or og:image:alt), when there is one. */
  alt?: string;
}

/** A page as a reader read it. */
export interface Page {
  /** The final URL, after redirects. */
  url: string;
  /** The HTTP status of the final response. */
  status: number;
  /** The media type, lower-case and without parameters (`text/html`); `""` when unknown. */
  mediaType: string;
  /** The page's title, when it has one. */
  title?: string;
  /** The page as text (Markdown for HTML); `undefined` for binary content, which is shown as metadata. */
  text?: string;
  /** De-duplicated absolute image URLs, when the caller asked for images. */
  images?: PageImage[];
  /** Bytes downloaded (or, for binary content not downloaded, the announced Content-Length). */
  size?: number;
  /** The download stopped at the reader's byte cap: the rest of the page was never downloaded. */
  sizeCapped?: boolean;
  /** The byte cap that stopped it, for the note the model reads. */
  maxBytes?: number;
}

/** Options of one {@link PageReader.read}. */
export interface ReadOptions {
  /** Also collect the page's images. */
  images?: boolean;
  /** Fires when the call is cancelled or times out. */
  signal?: AbortSignal;
}

/**
 * Reads one URL into a {@link Page}. `HttpReader` is the default; implement this to plug in a browser
 * renderer or a hosted extraction service. Throw `ToolError` for failures the model should read.
 */
export interface PageReader {
  read(url: string, options?: ReadOptions): Promise<Page>;
  /** Sentences appended to web_fetch's description (limits and refusals the model should know of). */
  readonly description?: string;
}
