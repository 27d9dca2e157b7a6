// The code editor: CodeMirror 6 with JavaScript highlighting, loaded only
// when an exercise is opened (it is the largest script on the page).
import { EditorView, basicSetup } from "codemirror";
import { javascript } from "@codemirror/lang-javascript";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";

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
  "&": { color: "var(--fg)", backgroundColor: "var(--code-bg)", fontSize: "0.88rem" },
  ".cm-content": { caretColor: "var(--fg)", fontFamily: "var(--mono)" },
  ".cm-gutters": { backgroundColor: "var(--code-bg)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "color-mix(in srgb, var(--fg) 6%, transparent)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "color-mix(in srgb, var(--accent) 30%, transparent)" },
  "&.cm-focused": { outline: "3px solid var(--focus)", outlineOffset: "2px" },
});

/** An editor in `parent` holding `doc`; `onChange(text)` on every edit. */
export function createEditor(parent, { doc, label, onChange }) {
  const view = new EditorView({
    doc,
    parent,
    extensions: [
      basicSetup,
      javascript(),
      lessonTheme,
      // Wrap long lines: a region that scrolls sideways is hard to reach by keyboard.
      EditorView.lineWrapping,
      syntaxHighlighting(lessonHighlighting),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) onChange(update.state.doc.toString());
      }),
      EditorView.contentAttributes.of({ "aria-label": label }),
    ],
  });
  return {
    get text() {
      return view.state.doc.toString();
    },
    set(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    focus: () => view.focus(),
  };
}
