import { Badge, createTheme, Input } from "@mantine/core";

export const theme = createTheme({
  // People who ask their system for less motion get no transitions.
  respectReducedMotion: true,
  components: {
    Input: Input.extend({
      // A field in error keeps its placeholder grey: Mantine colours it like
      // the error, so an example (a cron expression) read as a value refused.
      styles: { input: { "--input-placeholder-color": "var(--mantine-color-placeholder)" } },
    }),
    // A badge says a word (CRON, FAILED, BAD_INPUT): it never shrinks into
    // "C…" in a tight row or table cell; the row wraps or the cell widens.
    Badge: Badge.extend({
      styles: {
        root: { flexShrink: 0, overflow: "visible" },
        label: { overflow: "visible" },
      },
    }),
  },
});
