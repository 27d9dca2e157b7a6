// A small build-time syntax highlighter for the lesson's code blocks
// (JavaScript and shell). Highlighting at build time keeps the page's first
// load free of a highlighting library; the colours come from CSS classes
// (tok-*) so both themes style them.
//
// It recognises only what the lesson needs: comments, strings, numbers,
// keywords, literals and called functions in JavaScript; commands, flags,
// strings, comments and here-documents in shell. Anything else stays plain.
import { escapeHtml } from "../src/lesson/html.js";

const JS_KEYWORDS = new Set(
  "as async await break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof let new of return static super switch throw try typeof var void while with yield".split(" "),
);
const JS_LITERALS = new Set(["true", "false", "null", "undefined", "this", "NaN", "Infinity"]);

/** Wraps `text` in a token span, escaped. */
const token = (kind, text) => (kind ? `<span class="tok-${kind}">${escapeHtml(text)}</span>` : escapeHtml(text));

/** JavaScript source → highlighted HTML. */
export function highlightJs(source) {
  const pattern = /(\/\/[^\n]*|\/\*[\s\S]*?\*\/)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\[\s\S])*`)|(\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b)|([A-Za-z_$][\w$]*)|([\s\S])/gy;
  let html = "";
  let match;
  while ((match = pattern.exec(source)) !== null) {
    const [text, comment, string, number, word] = match;
    if (comment) html += token("com", text);
    else if (string) html += token("str", text);
    else if (number) html += token("num", text);
    else if (word) {
      const rest = source.slice(pattern.lastIndex);
      const before = source.slice(0, match.index).trimEnd();
      const previous = before.endsWith("...") ? "" : before.slice(-1);
      if (previous === "." && !/^\s*\(/.test(rest)) html += token("prop", text);
      else if (JS_KEYWORDS.has(text) && previous !== ".") html += token("kw", text);
      else if (JS_LITERALS.has(text)) html += token("lit", text);
      else if (/^\s*\(/.test(rest)) html += token("fn", text);
      else html += token(null, text);
    } else html += token(null, text);
  }
  return html;
}

/** Shell commands → highlighted HTML. */
export function highlightShell(source) {
  const lines = source.split("\n");
  const out = [];
  let heredocEnd = null;
  for (const line of lines) {
    if (heredocEnd !== null) {
      out.push(line.trim() === heredocEnd ? token("kw", line) : token("str", line));
      if (line.trim() === heredocEnd) heredocEnd = null;
      continue;
    }
    const heredoc = /<<-?\s*(['"]?)(\w+)\1/.exec(line);
    if (heredoc) heredocEnd = heredoc[2];
    out.push(highlightShellLine(line));
  }
  return out.join("\n");
}

function highlightShellLine(line) {
  const pattern = /(#[^\n]*)|("(?:[^"\\]|\\.)*"|'[^']*')|(<<-?\s*(['"]?)\w+\4)|(--?[A-Za-z][\w-]*(?:=\S*)?)|([^\s"'#<]+)|([\s\S])/gy;
  let html = "";
  let commandSeen = false;
  let match;
  while ((match = pattern.exec(line)) !== null) {
    const [text, comment, string, heredoc, , flag, word] = match;
    const atWordStart = match.index === 0 || /\s/.test(line[match.index - 1]);
    if (comment && atWordStart) html += token("com", text);
    else if (string) html += token("str", text);
    else if (heredoc) html += token("kw", text);
    else if (flag && atWordStart) html += token("attr", text);
    else if (word && !commandSeen) {
      html += token("fn", text);
      commandSeen = true;
    } else html += token(null, text);
  }
  return html;
}

const HIGHLIGHTERS = { js: highlightJs, javascript: highlightJs, mjs: highlightJs, sh: highlightShell, shell: highlightShell, bash: highlightShell, console: highlightShell };

/** Highlights source in `language`; unknown languages are escaped only. */
export function highlight(source, language) {
  const highlighter = HIGHLIGHTERS[language];
  return highlighter ? highlighter(source) : escapeHtml(source);
}

/** Undoes the HTML escaping of a rendered code block. */
export function unescapeHtml(html) {
  return html.replace(/&(#x?[0-9a-f]+|amp|lt|gt|quot|apos);/gi, (entity, name) => {
    const named = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[name.toLowerCase()];
    if (named) return named;
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isFinite(code) ? String.fromCodePoint(code) : entity;
  });
}

/**
 * Highlights every `<pre><code class="language-x">` block in rendered HTML
 * and makes each `<pre>` keyboard-scrollable (it may scroll sideways on a phone).
 */
export function highlightBlocks(html) {
  return html.replace(/<pre><code(?: class="language-([\w-]+)")?>([\s\S]*?)<\/code><\/pre>/g, (_, language, body) => {
    const languageClass = language ? ` class="language-${language}"` : "";
    const code = language ? highlight(unescapeHtml(body), language) : body;
    return `<pre class="code" tabindex="0"${language ? ` data-language="${language}"` : ""}><code${languageClass}>${code}</code></pre>`;
  });
}
