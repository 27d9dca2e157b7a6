// Making learner-controlled text inert where a report is read. Messages,
// console output inside timelines, and file and folder names come from
// submissions; they reach terminals, Markdown renderers, XML parsers and
// spreadsheets, each of which gives some characters a power of their own.
// Every format passes such text through one of these functions.

// What a terminal or a text viewer acts on rather than shows: C0 controls
// (escape sequences, carriage return, backspace, and the line feed that
// would start a report line of the learner's choosing), DEL, C1 controls,
// the Unicode line and paragraph separators, the bidirectional overrides
// and isolates that make text read differently from its bytes, the
// noncharacters U+FFFE and U+FFFF, and lone surrogates (not encodable as
// UTF-8). With the `u` flag a surrogate pair is one code point, so the
// surrogate range below matches lone halves only.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff\ud800-\udfff]/gu;

const codeEscape = (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** One line of text with every unsafe character shown as an escape such as `\u001b`. */
export function visible(text) {
  return String(text).replace(UNSAFE, codeEscape);
}

/** Multi-line text as its lines, each made `visible` (so none can hold a line break of its own). */
export function visibleLines(text) {
  return String(text).split("\n").map(visible);
}

// CommonMark lets a backslash escape any ASCII punctuation, and only
// punctuation gives Markdown its structure (headings, emphasis, links,
// images, code, tables, HTML, entities, emoji shortcodes), so all of it is
// escaped. Lines are joined with <br>, the one line break a table cell has.
const MARKDOWN_PUNCTUATION = /[!-/:-@[-`{-~]/g;

/** Text that renders in GitHub Markdown (a table cell, a heading) as exactly these characters. */
export function markdown(text) {
  return visibleLines(text)
    .map((line) => line.replace(MARKDOWN_PUNCTUATION, "\\$&"))
    .join("<br>");
}

// XML 1.0 allows tab, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD and the
// supplementary planes. `visible` has already replaced everything else
// except LF; this is the rule itself, kept as a last guard.
const XML_FORBIDDEN = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

function xmlEscape(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(XML_FORBIDDEN, "\ufffd");
}

/** Text content of an XML element: valid XML 1.0, lines kept. */
export function xmlText(text) {
  return xmlEscape(visibleLines(text).join("\n"));
}

/** An XML attribute value (in double quotes): line breaks kept as `&#10;`, which parsers would otherwise turn into spaces. */
export function xmlAttribute(text) {
  return xmlText(text).replace(/\n/g, "&#10;");
}

/**
 * A CSV cell, quoted. A cell that a spreadsheet would read as a formula
 * (first character `=`, `+`, `-`, `@`, tab or CR, as OWASP lists them) is
 * prefixed with a single quote so it stays text.
 */
export function csvCell(value) {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  let text = visible(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

/** Text safe to encode as UTF-8: lone surrogates become U+FFFD. */
export function wellFormed(text) {
  return String(text).toWellFormed();
}

/**
 * JSON text, indented, with every string well-formed. JSON.stringify would
 * write a lone surrogate as a `\udxxx` escape, which strict readers reject
 * and others turn into invalid UTF-8; it becomes U+FFFD instead.
 */
export function wellFormedJson(value) {
  return JSON.stringify(value, (_key, item) => (typeof item === "string" ? item.toWellFormed() : item), 2);
}
