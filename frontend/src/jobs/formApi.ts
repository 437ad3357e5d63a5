import { useState } from "react";
import type { UseFormReturnType } from "@mantine/form";
import type { JobFormValues } from "./jobForm";

/** The job form's state (@mantine/form, uncontrolled: typing re-renders nothing but what watches it). */
export type JobFormApi = UseFormReturnType<JobFormValues>;

/** Monospace for what is typed, not for the label and description. */
export const mono = { input: { fontFamily: "var(--mantine-font-family-monospace)" } };

/**
 * Part of the form's values, kept current: the component re-renders when
 * the field at `path` changes, and only then.
 */
export function useWatch<V, T>(form: UseFormReturnType<V>, path: string, select: (values: V) => T): T {
  const [value, setValue] = useState(() => select(form.getValues()));
  form.watch(path, () => setValue(select(form.getValues())));
  return value;
}
