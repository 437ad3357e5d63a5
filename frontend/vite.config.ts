/// <reference types="vitest/config" />
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

const outDir = resolve(import.meta.dirname, "dist");

// The Go server embeds dist/ (embed.go), and `go:embed` fails on a missing
// or empty directory, so git tracks dist/.gitkeep. A build must never take
// it away, not even for a moment: `make test` runs go vet in one lane while
// the other builds the console. So the build does not empty dist/ itself
// (emptyOutDir: false); this removes the last build's files but .gitkeep
// before writing, and puts .gitkeep back should it be missing.
function keepDistGitkeep(): Plugin {
  return {
    name: "jobwheel-keep-dist-gitkeep",
    apply: "build",
    buildStart() {
      mkdirSync(outDir, { recursive: true });
      for (const name of readdirSync(outDir, { withFileTypes: true })) {
        if (name.name !== ".gitkeep") rmSync(resolve(outDir, name.name), { recursive: true, force: true });
      }
    },
    closeBundle() {
      writeFileSync(resolve(outDir, ".gitkeep"), "");
    },
  };
}

// `npm run dev` serves the console with hot reload and forwards the API to a
// running server (JOBWHEEL_API_URL, default http://localhost:7700). The Host
// header is kept so the server sees the same origin for the session cookie
// and for its websocket origin check as it would in production.
const apiTarget = process.env.JOBWHEEL_API_URL ?? "http://localhost:7700";

export default defineConfig({
  plugins: [react(), keepDistGitkeep()],
  build: {
    outDir,
    emptyOutDir: false, // keepDistGitkeep empties it, .gitkeep aside
    // The largest chunk is the GraphQL explorer's (GraphiQL and its
    // editors, ~210 kB gzipped), loaded on /graphiql only.
    chunkSizeWarningLimit: 700,
    rolldownOptions: {
      onLog(level, log, handler) {
        // GraphiQL's react-compiler-runtime marks itself "use no memo", a
        // directive for the React compiler that bundling may drop: harmless.
        if (log.code === "MODULE_LEVEL_DIRECTIVE" && log.id?.includes("react-compiler-runtime")) return;
        handler(level, log);
      },
      output: {
        // Libraries in chunks of their own keep their content hashes, so
        // browsers re-download only the console's code after an upgrade.
        codeSplitting: {
          groups: [
            { name: "react", test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/ },
            { name: "mantine", test: /node_modules[\\/](@mantine[\\/](?!charts)|@floating-ui[\\/])/ },
            { name: "graphql", test: /node_modules[\\/](urql|@urql|graphql|graphql-ws|wonka|@0no-co)[\\/]/ },
            // The dashboard's chart and what it draws with, loaded with the
            // chart only. Last: a group takes its modules' dependencies too,
            // unless a group listed earlier took them (React, Mantine).
            {
              name: "charts",
              test: /node_modules[\\/](@mantine[\\/]charts|recharts|d3-[a-z-]+|victory-vendor|internmap|@reduxjs|redux|redux-thunk|react-redux|immer|reselect|es-toolkit|decimal\.js-light)[\\/]/,
            },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      "/graphql": { target: apiTarget, ws: true },
    },
  },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/test/setup.ts"],
    css: false,
    // The tests assert behaviour, not speed: a busy 2-core CI machine can
    // take well over vitest's default 5 s to render and type through a
    // dialog in jsdom, and a timeout there says nothing about the console.
    testTimeout: 60_000,
  },
});
