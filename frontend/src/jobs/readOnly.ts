import { createContext, useContext } from "react";

/**
 * Whether the job form only shows a job (for a VIEWER): its native inputs
 * are disabled by a <fieldset disabled>; what is not a native input (the
 * script editor, the buttons that add and remove rows) reads this.
 */
export const ReadOnlyContext = createContext(false);

export function useReadOnly(): boolean {
  return useContext(ReadOnlyContext);
}
