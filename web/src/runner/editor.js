// The code editor: CodeMirror 6 with JavaScript highlighting, loaded only
// when an exercise is opened (it is the largest script on the page).
import { EditorView, basicSetup } from "codemirror";
import { javascript } from "@codemirror/lang-javascript";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { Annotation, Prec, StateEffect } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import { indentWithTab } from "@codemirror/commands";
import { syntaxTree } from "@codemirror/language";
import { forceLinting, linter, lintGutter } from "@codemirror/lint";

/** Marks a change made by the page, not typed by the learner: it is not reported to `onChange`. */
const quietChange = Annotation.define();

/** The grader reported on the text: lint again (the linter otherwise runs only after edits). */
const gradedEffect = StateEffect.define();

// The page's own token colours (CSS variables that follow the light and dark
// themes, chosen for contrast), so the editor reads like the lesson's code.
const lessonHighlighting = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword, tags.operatorKeyword], color: "var(--tok-kw)" },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: "var(--tok-str)" },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: "var(--tok-com)", fontStyle: "italic" },
  { tag: [tags.number], color: "var(--tok-num)" },
  { tag: [tags.bool, tags.null, tags.atom], color: "var(--tok-lit)" },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName), tags.definition(tags.function(tags.variableName))], color: "var(--tok-fn)" },
  { tag: [tags.propertyName], color: "var(--tok-prop)" },
]);

const lessonTheme = EditorView.theme({
  ".cm-content": { caretColor: "var(--fg)", fontFamily: "var(--mono)" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "color-mix(in srgb, var(--fg) 6%, transparent)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "color-mix(in srgb, var(--accent) 30%, transparent)" },
  "&": { color: "var(--fg)", backgroundColor: "var(--code-bg)", fontSize: "0.88rem", border: "1px solid var(--line)", borderRadius: "var(--radius)" },
  "&.cm-focused": { outline: "3px solid var(--focus)", outlineOffset: "2px" },
  ".cm-scroller": { borderRadius: "inherit" },
  ".cm-gutters": { backgroundColor: "var(--code-bg)", color: "var(--muted)", borderRight: "1px solid var(--line)", borderRadius: "var(--radius) 0 0 var(--radius)" },
});

/**
 * Syntax errors as the editor's parser sees them, while typing: each error
 * node of the syntax tree, merged when they touch. The grader's own words
 * (`marks`) replace these once a run has reported on this very text.
 */
function syntaxDiagnostics(state) {
  const found = [];
  syntaxTree(state).iterate({
    enter(node) {
      if (!node.type.isError) return;
      const last = found.at(-1);
      if (last && node.from <= last.to + 1) {
        last.to = Math.max(last.to, node.to);
        return;
      }
      found.push({ from: node.from, to: Math.max(node.to, node.from), severity: "error", source: "syntax", message: "Syntax error: this does not parse as JavaScript here." });
    },
  });
  return found.slice(0, 20);
}

/** `{ line, column, severity, message }` (1-based) → a CodeMirror diagnostic over the rest of that line. */
function toDiagnostic(doc, mark) {
  const line = doc.line(Math.max(1, Math.min(doc.lines, mark.line)));
  const from = Math.min(line.to, line.from + Math.max(0, mark.column - 1));
  return { from, to: Math.max(from, line.to), severity: mark.severity ?? "error", source: "grader", message: mark.message };
}

/** An editor in `parent` holding `doc`; `onChange(text)` on every edit; `onRun()` on Ctrl/Cmd+Enter. */
export function createEditor(parent, { doc, label, onChange, onRun = null }) {
  /** The grader's marks and the text they are about: they show only while the text is unchanged. */
  let graded = { text: null, marks: [] };
  const view = new EditorView({
    doc,
    parent,
    extensions: [
      basicSetup,
      // Tab indents, as in any code editor. A keyboard user leaves the editor with Escape, then Tab
      // (CodeMirror's own escape hatch; the editor's label says so).
      keymap.of([indentWithTab]),
      // Ctrl/Cmd+Enter runs the tests, before CodeMirror's own binding of it (a blank line below).
      Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (onRun ? (onRun(), true) : false) }])),
      javascript(),
      lintGutter(),
      linter((view) => {
        const text = view.state.doc.toString();
        if (graded.text === text && graded.marks.length > 0) return graded.marks.map((mark) => toDiagnostic(view.state.doc, mark));
        return syntaxDiagnostics(view.state);
      }, { delay: 300, needsRefresh: (update) => update.transactions.some((transaction) => transaction.effects.some((effect) => effect.is(gradedEffect))) }),
      lessonTheme,
      // Wrap long lines: a region that scrolls sideways is hard to reach by keyboard.
      EditorView.lineWrapping,
      syntaxHighlighting(lessonHighlighting),
      EditorView.updateListener.of((update) => {
        if (update.docChanged && !update.transactions.some((transaction) => transaction.annotation(quietChange))) onChange(update.state.doc.toString());
      }),
      EditorView.contentAttributes.of({ "aria-label": `${label}. Tab indents; press Escape, then Tab, to move on; Control or Command with Enter runs the tests.` }),
    ],
  });
  return {
    get text() {
      return view.state.doc.toString();
    },
    /** Replaces the text; `quiet` skips `onChange` (the text is not the learner's edit, e.g. a reset). */
    set(text, { quiet = false } = {}) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, annotations: quiet ? quietChange.of(true) : [] });
    },
    focus: () => view.focus(),
    /**
     * Marks `marks` ({ line, column, severity, message }, 1-based) on `text`,
     * the text that was graded; they show while the editor holds that text.
     */
    showMarks(text, marks) {
      graded = { text, marks };
      view.dispatch({ effects: gradedEffect.of(null) });
      forceLinting(view);
    },
  };
}
