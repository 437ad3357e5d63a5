import { createTheme } from "@mantine/core";

export const theme = createTheme({
  // People who ask their system for less motion get no transitions.
  respectReducedMotion: true,
});
