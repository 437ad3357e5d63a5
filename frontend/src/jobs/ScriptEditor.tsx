// Loaded on demand (CodeMirror is most of the form's weight): see CodeField.
import { useMemo } from "react";
import { useComputedColorScheme } from "@mantine/core";
import { python } from "@codemirror/lang-python";
import { StreamLanguage } from "@codemirror/language";
import { shell } from "@codemirror/legacy-modes/mode/shell";
import { EditorView } from "@codemirror/view";
import CodeMirror from "@uiw/react-codemirror";

export type ScriptLanguage = "shell" | "python";

export interface ScriptEditorProps {
  language: ScriptLanguage;
  value: string;
  onChange: (value: string) => void;
  /** The id of the element that labels the editor. */
  labelledBy: string;
  /** Ids of the description and error, space-separated. */
  describedBy?: string;
  invalid: boolean;
  placeholder?: string;
  /** Shown, not edited. */
  readOnly?: boolean;
}

const shellLanguage = StreamLanguage.define(shell);

/** A code editor with the script's syntax highlighted, in the console's colour scheme. */
export default function ScriptEditor({
  language,
  value,
  onChange,
  labelledBy,
  describedBy,
  invalid,
  placeholder,
  readOnly = false,
}: ScriptEditorProps) {
  const scheme = useComputedColorScheme("light");
  const extensions = useMemo(
    () => [
      language === "python" ? python() : shellLanguage,
      EditorView.lineWrapping,
      // The editable element is what a screen reader or a keyboard lands on.
      EditorView.contentAttributes.of({
        "aria-labelledby": labelledBy,
        ...(describedBy ? { "aria-describedby": describedBy } : {}),
        "aria-invalid": invalid ? "true" : "false",
        "aria-multiline": "true",
        ...(readOnly ? { "aria-readonly": "true" } : {}),
        role: "textbox",
      }),
    ],
    [language, labelledBy, describedBy, invalid, readOnly],
  );
  return (
    <CodeMirror
      value={value}
      onChange={onChange}
      extensions={extensions}
      theme={scheme === "dark" ? "dark" : "light"}
      minHeight="180px"
      maxHeight="480px"
      placeholder={placeholder}
      editable={!readOnly}
      readOnly={readOnly}
      basicSetup={{ foldGutter: false, autocompletion: false }}
    />
  );
}
