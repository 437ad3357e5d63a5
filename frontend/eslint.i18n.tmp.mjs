import tseslint from "typescript-eslint";
import i18next from "eslint-plugin-i18next";
export default [
  { ignores: ["dist", "src/graphql"] },
  { files: ["src/**/*.tsx"], ignores: ["**/*.test.tsx", "src/test/**"], languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } }, plugins: { i18next },
    rules: { "i18next/no-literal-string": ["error", { mode: "jsx-only", "jsx-attributes": { include: ["label", "title", "placeholder", "aria-label", "description", "error", "message", "confirmLabel", "loading", "body", "alt", "noun", "empty", "heading", "hint", "legend", "nothingFoundMessage", "cancelLabel"] } }] } },
];
