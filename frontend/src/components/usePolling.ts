import { useEffect, useRef } from "react";
import { useDocumentVisibility } from "@mantine/hooks";

/**
 * Calls `poll` every `intervalMs` while `enabled` and the page is visible
 * (a hidden tab sends nothing), and once at once when the page becomes
 * visible again, so what shows is current when someone looks.
 */
export function usePolling(poll: () => void, intervalMs: number, enabled = true): void {
  const visible = useDocumentVisibility() === "visible";
  const latest = useRef(poll);
  useEffect(() => {
    latest.current = poll;
  });
  const wasVisible = useRef(visible);

  useEffect(() => {
    if (!enabled || !visible) {
      wasVisible.current = visible;
      return;
    }
    if (!wasVisible.current) latest.current();
    wasVisible.current = true;
    const timer = setInterval(() => latest.current(), intervalMs);
    return () => clearInterval(timer);
  }, [enabled, visible, intervalMs]);
}
