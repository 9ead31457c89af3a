// The playground's code editor: CodeMirror 6 with YAML highlighting, line numbers, folding,
// long lines wrapped (not cut off), search (Ctrl/Cmd-F), undo history and the loader's errors underlined at their line and column
// (hover for the message; the lint gutter marks the line). Bundled by `cargo xtask web` (esbuild,
// offline from www/editor/node_modules) into dist/playground/editor.js, which sets
// `window.spreadlabEditor`; the Rust editor component (crates/playground/src/code_editor.rs)
// drives it and falls back to a textarea when it is absent. The text stays the app's: every user
// edit is handed to `onChange`, and `setText` applies the app's own changes (controls, examples).
import { EditorState, EditorSelection } from '@codemirror/state';
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  drawSelection, dropCursor, highlightSpecialChars,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import {
  foldGutter, foldKeymap, indentOnInput, bracketMatching, syntaxHighlighting, HighlightStyle,
} from '@codemirror/language';
import { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import { lintGutter, lintKeymap, setDiagnostics } from '@codemirror/lint';
import { yaml } from '@codemirror/lang-yaml';
import { tags } from '@lezer/highlight';

// Colours are the page's CSS variables (style.css), so the editor follows the light/dark scheme.
const highlight = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: 'var(--hl-key)' },
  { tag: [tags.string, tags.special(tags.string), tags.content], color: 'var(--hl-string)' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom, tags.keyword], color: 'var(--hl-atom)' },
  { tag: [tags.comment, tags.lineComment], color: 'var(--hl-comment)', fontStyle: 'italic' },
  { tag: [tags.meta, tags.processingInstruction, tags.labelName, tags.typeName], color: 'var(--hl-meta)' },
  { tag: [tags.punctuation, tags.separator, tags.squareBracket, tags.brace], color: 'var(--muted)' },
]);

const theme = EditorView.theme({
  '&': { height: '100%', backgroundColor: 'var(--card)', color: 'var(--fg)', fontSize: '12px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, monospace', lineHeight: '18px' },
  '.cm-gutters': { backgroundColor: 'var(--gutter-bg)', color: 'var(--muted)', borderRight: '1px solid var(--line)' },
  '.cm-activeLine': { backgroundColor: 'var(--active-line)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--active-line)', color: 'var(--fg)' },
  '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--fg)' },
  '.cm-selectionBackground, &.cm-focused .cm-selectionBackground': { backgroundColor: 'var(--selection) !important' },
  '.cm-panels': { backgroundColor: 'var(--card)', color: 'var(--fg)' },
  '.cm-tooltip': { backgroundColor: 'var(--card)', color: 'var(--fg)', border: '1px solid var(--line)' },
});

let view = null;
let applying = false;

/** The document offset of 1-based `line` and `column` (clamped into the document). */
function offset(state, line, column) {
  const l = state.doc.line(Math.min(Math.max(line, 1), state.doc.lines));
  return Math.min(l.from + Math.max((column || 1) - 1, 0), l.to);
}

/** The underlined range of a diagnostic: the YAML field at its column (a key and its scalar value
 * up to the next `,`, `}`, `]` or comment, or a lone scalar), or the whole line without a column. */
const FIELD = /^("[^"]*"|'[^']*'|[^\s:,{}[\]]+)(\s*:(\s+("[^"]*"|'[^']*'|[^,{}[\]#]*))?)?/;
function range(state, line, column) {
  const l = state.doc.line(Math.min(Math.max(line, 1), state.doc.lines));
  if (!column) return { from: l.from, to: l.to };
  const from = offset(state, line, column);
  const field = l.text.slice(from - l.from).match(FIELD);
  const to = field ? from + field[0].trimEnd().length : from;
  return to > from ? { from, to } : { from: l.from, to: l.to };
}

window.spreadlabEditor = {
  /** Creates the editor in `parent` holding `text`; `onChange(text)` gets every user edit and
   * `onFile(file)` a file dropped on it (imported by the app, not inserted). */
  mount(parent, text, label, onChange, onFile) {
    if (view) view.destroy();
    view = new EditorView({
      parent,
      state: EditorState.create({
        doc: text,
        extensions: [
          lineNumbers(), highlightActiveLineGutter(), foldGutter(), lintGutter(), highlightSpecialChars(),
          history(), drawSelection(), dropCursor(), indentOnInput(), bracketMatching(),
          highlightActiveLine(), highlightSelectionMatches(), syntaxHighlighting(highlight),
          yaml(), theme, EditorState.tabSize.of(2), EditorView.lineWrapping,
          keymap.of([...defaultKeymap, ...searchKeymap, ...historyKeymap, ...foldKeymap, ...lintKeymap, indentWithTab]),
          // tabindex: the content is the scroller's focusable element (axe: scrollable-region-focusable).
          EditorView.contentAttributes.of({ id: 'input', 'aria-label': label, 'aria-describedby': 'issues', spellcheck: 'false', tabindex: '0' }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged && !applying) onChange(update.state.doc.toString());
          }),
          EditorView.domEventHandlers({
            drop(event) {
              const file = event.dataTransfer?.files?.[0];
              if (!file) return false;
              event.preventDefault();
              onFile(file);
              return true;
            },
          }),
        ],
      }),
    });
  },

  /** Removes the editor. */
  destroy() {
    if (view) view.destroy();
    view = null;
  },

  /** Replaces the text with the app's (not an edit of the user's: no `onChange`). Only the
   * changed middle is replaced (a control rewrites one line), so the cursor, folds and
   * underlines elsewhere stay where they were. */
  setText(text) {
    if (!view) return;
    const old = view.state.doc.toString();
    if (old === text) return;
    let start = 0;
    const shortest = Math.min(old.length, text.length);
    while (start < shortest && old.charCodeAt(start) === text.charCodeAt(start)) start++;
    let end = 0;
    while (end < shortest - start && old.charCodeAt(old.length - 1 - end) === text.charCodeAt(text.length - 1 - end)) end++;
    applying = true;
    try {
      view.dispatch({ changes: { from: start, to: old.length - end, insert: text.slice(start, text.length - end) } });
    } finally {
      applying = false;
    }
  },

  /** Underlines the loader's issues: `[{line, column, severity: 'error'|'warning', message}]`. */
  setDiagnostics(issues) {
    if (!view) return;
    const state = view.state;
    const diagnostics = issues
      .filter((i) => i.line >= 1 && i.line <= state.doc.lines)
      .map((i) => ({ ...range(state, i.line, i.column), severity: i.severity, message: i.message }));
    view.dispatch(setDiagnostics(state, diagnostics));
  },

  /** Puts the cursor at 1-based `line` and `column`, scrolls it into view and focuses. */
  jump(line, column) {
    if (!view) return;
    const at = offset(view.state, line, column);
    view.dispatch({ selection: EditorSelection.cursor(at), scrollIntoView: true });
    view.focus();
  },

  /** The text (for tests). */
  text() {
    return view ? view.state.doc.toString() : null;
  },

  /** The cursor as 1-based `{line, column}` (for tests). */
  cursor() {
    if (!view) return null;
    const head = view.state.selection.main.head;
    const line = view.state.doc.lineAt(head);
    return { line: line.number, column: head - line.from + 1 };
  },

  /** Replaces the whole text as a paste by the user does (select all, paste): an edit that reaches
   * `onChange`. For tests: Playwright's typing is far too slow for big texts. */
  paste(text) {
    if (!view) return;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: 'input.paste' });
  },
};
