// The code editor: CodeMirror 6 with JavaScript highlighting, loaded only
// when an exercise is opened (it is the largest script on the page).
import { EditorView, basicSetup } from "codemirror";
import { javascript } from "@codemirror/lang-javascript";

/** An editor in `parent` holding `doc`; `onChange(text)` on every edit. */
export function createEditor(parent, { doc, label, onChange }) {
  const view = new EditorView({
    doc,
    parent,
    extensions: [
      basicSetup,
      javascript(),
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
