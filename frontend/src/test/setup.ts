import "@testing-library/jest-dom/vitest";
import { configure } from "@testing-library/react";

// findBy… and waitFor wait for what the test asserts; their default 1 s is
// a speed threshold a busy 2-core CI machine fails while rendering a large
// form in jsdom. The wait ends as soon as the assertion holds.
configure({ asyncUtilTimeout: 20_000 });

// jsdom lacks the layout APIs Mantine calls (as Mantine's testing guide says).
Object.defineProperty(window, "matchMedia", {
  writable: true,
  value: (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }) satisfies Omit<MediaQueryList, "addListener" | "removeListener">,
});
window.ResizeObserver = class {
  observe() {}
  unobserve() {}
  disconnect() {}
};
window.HTMLElement.prototype.scrollIntoView = () => {};

