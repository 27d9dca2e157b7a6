// Escaping for HTML built as strings. Used by the views that render the same
// markup at build time (Node) and in the page, so there is no DOM here.

const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for use between tags or inside a quoted attribute value. */
export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (character) => ENTITIES[character]);
}

/** Builds ` name="value"` pairs; `false`, `null` and `undefined` leave the attribute out, `true` writes it bare. */
export function attributes(pairs) {
  let text = "";
  for (const [name, value] of Object.entries(pairs)) {
    if (value === false || value === null || value === undefined) continue;
    text += value === true ? ` ${name}` : ` ${name}="${escapeHtml(value)}"`;
  }
  return text;
}

/** The text of an HTML fragment, without tags, for labels and short summaries. */
export function textOf(html) {
  return String(html)
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, (entity, name) => {
      const named = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" }[name.toLowerCase()];
      if (named) return named;
      if (name[0] !== "#") return entity;
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : entity;
    })
    .replace(/\s+/g, " ")
    .trim();
}
