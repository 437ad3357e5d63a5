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


// React warns when an element may not hold another (a <div> in a <p>, an
// <h3> in a drawer's <h2> title): browsers then re-parent the markup, and
// what a reader and a screen reader get is not what the component says.
// The warning is only a console line, so the test that rendered it fails.
const nesting: string[] = [];
const consoleError = console.error.bind(console);
console.error = (...args: unknown[]) => {
  // React passes the tags as %s arguments of its format string.
  const [format, ...rest] = args;
  const message = typeof format === "string" ? format.replace(/%s/g, () => String(rest.shift())) : String(format);
  if (/In HTML, <\w+> cannot be (a child|a descendant) of <\w+>/.test(message)) {
    nesting.push(message.split("\n", 1)[0] ?? message);
  }
  consoleError(...args);
};
afterEach(() => {
  if (nesting.length > 0) {
    throw new Error(`invalid HTML nesting rendered: ${nesting.splice(0).join("; ")}`);
  }
});
