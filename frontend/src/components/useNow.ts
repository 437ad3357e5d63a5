import { useEffect, useState } from "react";

/**
 * The time now, in ms, renewed every `everyMs` (null: never, for a caller
 * that needs it only sometimes): for what is computed relative to now.
 */
export function useNow(everyMs: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (everyMs === null) return;
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
