import { lazy, Suspense, type ReactNode } from "react";
import { Box, Input, Loader } from "@mantine/core";
import { useId } from "@mantine/hooks";
import { useReadOnly } from "./readOnly";
import type { ScriptLanguage } from "./ScriptEditor";
import { t } from "../i18n";

const ScriptEditor = lazy(() => import("./ScriptEditor"));

interface CodeFieldProps {
  label: string;
  description?: ReactNode;
  error?: ReactNode;
  language: ScriptLanguage;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  required?: boolean;
}

/** A labelled script editor with a description and an error, like Mantine's inputs. */
export function CodeField({ label, description, error, language, value, onChange, placeholder, required }: CodeFieldProps) {
  const id = useId();
  const readOnly = useReadOnly();
  const labelId = `${id}-label`;
  const describedBy = [error ? `${id}-error` : null, description ? `${id}-description` : null]
    .filter(Boolean)
    .join(" ");
  return (
    <Input.Wrapper
      id={id}
      label={label}
      description={description}
      error={error}
      required={required}
      // The editor is no form control a <label> could point at; it names
      // this label with aria-labelledby instead.
      labelElement="div"
      labelProps={{ id: labelId }}
    >
      <Box
        mt={4}
        style={{
          border: `1px solid ${error ? "var(--mantine-color-error)" : "var(--mantine-color-default-border)"}`,
          borderRadius: "var(--mantine-radius-sm)",
          overflow: "hidden",
        }}
      >
        <Suspense fallback={<Loader size="sm" m="sm" aria-label={t("jobs.CodeField.loadingTheEditor")} />}>
          <ScriptEditor
            language={language}
            value={value}
            onChange={onChange}
            labelledBy={labelId}
            describedBy={describedBy || undefined}
            invalid={Boolean(error)}
            placeholder={placeholder}
            readOnly={readOnly}
          />
        </Suspense>
      </Box>
    </Input.Wrapper>
  );
}
