import "@mantine/core/styles.css";
import "@mantine/dates/styles.css";
import "@mantine/notifications/styles.css";
// First: modules that build labels when they load read the language.
import "./i18n";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");

// React recovers from an error thrown while rendering concurrently by
// rendering again synchronously, and by default reports only its own
// wrapper ("Minified React error #520"): log what was thrown, and where.
createRoot(root, {
  onRecoverableError(error, info) {
    const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
    console.error("console: recovered from a rendering error:", cause, info.componentStack ?? "");
  },
}).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
