import { useCallback, useEffect, useRef } from "react";

/**
 * `fn`, called at most once per `windowMs`: the first call runs at once,
 * and any calls during the window that follows run once at its end. A burst
 * of pushed changes so makes one refetch, not one each.
 */
export function useThrottled(fn: () => void, windowMs: number): () => void {
  const latest = useRef(fn);
  useEffect(() => {
    latest.current = fn;
  });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const pending = useRef(false);

  useEffect(
    () => () => {
      clearTimeout(timer.current);
      timer.current = undefined;
    },
    [],
  );

  return useCallback(() => {
    if (timer.current !== undefined) {
      pending.current = true;
      return;
    }
    latest.current();
    const tick = () => {
      if (pending.current) {
        pending.current = false;
        latest.current();
        timer.current = setTimeout(tick, windowMs);
      } else {
        timer.current = undefined;
      }
    };
    timer.current = setTimeout(tick, windowMs);
  }, [windowMs]);
}
