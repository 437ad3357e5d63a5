// Package e2e holds jobwheel's end-to-end tests: real server and worker
// processes, PostgreSQL and SQLite, and Debian's Chromium driven by
// playwright-core (e2e/browser). The harness they share is e2e/harness.
package e2e
