import { useState } from "react";

/**
 * How many times a dialog has been opened: a key for its content, so every
 * opening starts afresh while the content stays in place during the
 * closing fade.
 */
export function useOpenings(opened: boolean): number {
  const [count, setCount] = useState(opened ? 1 : 0);
  const [wasOpened, setWasOpened] = useState(opened);
  if (opened !== wasOpened) {
    setWasOpened(opened);
    if (opened) setCount(count + 1);
  }
  return count;
}
