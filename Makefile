# jobwheel — see README.md. `make run` starts it; `make test` tests everything.
SHELL := /bin/bash
GO    ?= go
BIN   := bin
# Our Go packages: npm packages may carry Go code of their own
# (frontend/node_modules), which is not ours to vet or test.
PKGS = $$($(GO) list ./... | grep -v /node_modules/)
# Go packages the unit tests cover: everything but the end-to-end suite.
UNIT_PKGS = $$($(GO) list ./... | grep -v /node_modules/ | grep -v /e2e)
# Packages whose code and tests run nothing concurrently (pure validation,
# parsing, computing fire times): the race detector has nothing to find
# there, and their fuzz seeds and sweeps run several times faster without it.
NORACE_PKGS := server/api/apps server/api/workflows server/platform/httpsec server/platform/netguard \
	server/platform/text server/runtime/dispatch server/schedule server/schedule/cron worker/protocol
space := $(subst ,, )
NORACE_RE := $(subst $(space),|,$(strip $(addprefix /,$(addsuffix $$,$(NORACE_PKGS)))))
RACE_PKGS = $$($(GO) list ./... | grep -v /node_modules/ | grep -v /e2e | grep -vE '$(NORACE_RE)')
# Root or sudo for installing system packages on a fresh machine.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all run build console generate check deps system-deps tools test test-deps test-deploy deploy-schemas test-go test-python test-java test-frontend test-e2e check-generated check-tracked e2e-tools bench bench-bin fuzz soak lint clean

all: build

# What the console and the binaries are built from: each is rebuilt only
# when one of its sources is newer than it, so `make run` starts at once
# when nothing changed.
CONSOLE_SRC := $(shell find frontend/src frontend/public -type f 2>/dev/null) frontend/index.html \
	frontend/package.json frontend/package-lock.json frontend/vite.config.ts $(wildcard frontend/tsconfig*.json)
GO_SRC := $(shell find . \( -name node_modules -o -name .git -o -name output \) -prune -o \
	-type f \( -name '*.go' -o -name '*.sql' \) -print) go.mod go.sum

## build: the console, then the server (with the console embedded), the agent and the command-line tool
build: $(BIN)/jobwheel-server $(BIN)/jobwheel-agent $(BIN)/jobwheel

console: frontend/dist/index.html

frontend/dist/index.html: frontend/node_modules $(CONSOLE_SRC)
	cd frontend && npm run build

# go build leaves an up-to-date binary untouched; touch tells make it is.
$(BIN)/jobwheel-server: $(GO_SRC) frontend/dist/index.html
	$(GO) build -o $@ ./cmd/jobwheel-server
	@touch $@

$(BIN)/jobwheel-agent: $(GO_SRC)
	$(GO) build -o $@ ./cmd/jobwheel-agent
	@touch $@

$(BIN)/jobwheel: $(GO_SRC)
	$(GO) build -o $@ ./cmd/jobwheel
	@touch $@

frontend/node_modules: frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	@touch $@

# The browser tests use the console's own install (playwright-core is one
# of its dev dependencies): one npm ci for both.
e2e/browser/node_modules: frontend/node_modules
	ln -sfn ../../frontend/node_modules $@

## run: build and start jobwheel on the embedded SQLite database (jobwheel.db here)
run: build
	./scripts/run.sh

## generate: regenerate the GraphQL server code and the console's typed operations
generate: frontend/node_modules
	$(GO) generate ./...
	cd frontend && npm run codegen

## check: the inner loop — gofmt, go vet and the Go unit and database tests (SQLite and PostgreSQL), without -race, e2e, browser, deploy or npm stages, and without the SDK conformance kit (it builds and starts the Java and Python workers; make test runs it)
CHECK_PKGS = $$($(GO) list ./... | grep -v /node_modules/ | grep -v /e2e | grep -v /worker/conformance)
check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(UNIT_PKGS)
	$(GO) test -count=1 $(CHECK_PKGS)
	@echo "make check: passed"

## deps: install everything the tests need — Debian packages, Go modules, the console's npm packages (one npm ci) and the pinned Go tools
deps: deps-base tools

# What every lane of make test needs before it starts; the tools are built
# in the static lane, beside the Go tests.
.PHONY: deps-base
deps-base: system-deps frontend/node_modules e2e/browser/node_modules
	$(GO) mod download

## tools: golangci-lint, helm and kubeconform, and the e2e tests' Dex and Jaeger (e2e-tools), built from the Go module proxy at the versions pinned in tools/ (in parallel; test-e2e waits for them through the same lock)
tools:
	@mkdir -p $(BIN)
	flock $(BIN)/.tools.lock $(MAKE) --no-print-directory -j3 $(BIN)/golangci-lint $(BIN)/helm $(BIN)/kubeconform $(E2E_TOOLS)

## e2e-tools: the real services the end-to-end tests start: Dex (an OpenID Connect provider) and Jaeger (a trace collector), pinned in tools/dex/go.mod and tools/jaeger/go.mod and built into bin/ (never committed)
E2E_TOOLS := $(BIN)/dex $(BIN)/jaeger
e2e-tools: $(E2E_TOOLS)

$(BIN)/dex: tools/dex/go.mod tools/dex/go.sum
	$(GO) build -C tools/dex -o ../../$(BIN)/dex github.com/dexidp/dex/cmd/dex

$(BIN)/jaeger: tools/jaeger/go.mod tools/jaeger/go.sum
	$(GO) build -C tools/jaeger -o ../../$(BIN)/jaeger github.com/jaegertracing/jaeger/cmd/jaeger

system-deps:
	@command -v chromium >/dev/null || { echo "installing Debian's chromium for the browser tests"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }
	@pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null || command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
		{ echo "installing PostgreSQL so the tests can start a throwaway cluster"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq postgresql >/dev/null; }
	@command -v python3 >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq python3 >/dev/null; }
	@python3 -c 'import wheel' 2>/dev/null || [ -d /usr/lib/python3/dist-packages/wheel ] || { echo "installing Debian's python3-wheel to build the Python SDK offline"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq python3-wheel >/dev/null; }
	@[ -x /usr/bin/mypy ] || { echo "installing Debian's mypy to type-check the Python SDK"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq mypy >/dev/null; }
	@command -v patroni >/dev/null && command -v etcd >/dev/null && { command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ]; } || { \
		echo "installing Debian's patroni, etcd-server and haproxy for the HA PostgreSQL tier (e2e TestPrimaryFailover, make soak SOAK_DB=patroni)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq patroni etcd-server haproxy >/dev/null; }
	@command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || { echo "installing Debian's pgbouncer for the e2e behind a transaction pooler"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq pgbouncer >/dev/null; }
	@# The importer's test (e2e TestImport) loads PowerJob's and xxl-job's tables into the MariaDB
	@# server on 127.0.0.1:3306 (root, no password), and starts it if it is not up. A server already
	@# answering there, or installed, is left as it is; a fresh install is started and lets root in
	@# over TCP without a password, as the machines' own server does.
	@mariadb-admin -h 127.0.0.1 -u root ping >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || { \
		echo "installing Debian's mariadb-server for the importer's test (e2e TestImport)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server >/dev/null && \
		$(SUDO) start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd && \
		for i in $$(seq 60); do $(SUDO) mariadb-admin ping >/dev/null 2>&1 && break; sleep 1; done && \
		$(SUDO) mariadb -e "ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('')"; }
	@missing=; for p in $(JAVA_DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
		[ -z "$$missing" ] || { echo "installing Debian's JDK, Maven and the jars the Java worker builds against:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing >/dev/null; }

# test-deps is deps' old name.
test-deps: deps

## test: install what the tests need, then run every test (CI runs exactly this). The static stages (lint, the deploy files, the console's checks) run beside the Go tests, which spend much of their time waiting on processes and the database
test: deps-base
	$(MAKE) --no-print-directory -j2 --output-sync=target test-static test-dynamic
	@echo "make test: all tests passed"

# make test's two lanes, each in order; the lanes run side by side.
.PHONY: test-static test-dynamic
# The dynamic lane is the longer: its race tests, then the e2e suite, which
# needs Dex and Jaeger. So those two are built at normal priority, beside
# the race tests, and the rest of the static lane runs niced: it has time to
# spare, and on two cores every CPU-second it takes is one the critical
# path waits for.
test-static:
	@mkdir -p $(BIN)
	@flock $(BIN)/.tools.lock $(MAKE) --no-print-directory -j2 $(E2E_TOOLS) & e2e=$$!; \
	nice -n 10 $(MAKE) --no-print-directory -j2 $(BIN)/golangci-lint $(BIN)/helm $(BIN)/kubeconform && \
	MAKEFLAGS= nice -n 10 $(MAKE) --no-print-directory check-tracked check-generated lint test-deploy test-python test-frontend; \
	s=$$?; wait $$e2e || s=1; exit $$s
test-dynamic:
	MAKEFLAGS= $(MAKE) --no-print-directory test-java test-go test-e2e

## check-tracked: no build output or other binary is committed (git's own text detection; images and the like excepted)
check-tracked:
	@bad=$$(git ls-files --eol | awk '$$1 == "i/-text" {print $$NF}' | \
		grep -vE '\.(png|jpg|jpeg|gif|ico|woff2?|ttf|gz|zip|jar|pb)$$' || true); \
	if [ -n "$$bad" ]; then echo "binary files are tracked (build outputs belong in bin/, which git ignores):"; echo "$$bad"; exit 1; fi

## check-generated: the committed GraphQL server code is what go generate makes now (test-frontend checks the console's typed operations)
# go generate rewrites graph/ in place, and make test's other lane compiles
# it meanwhile: the check generates into a copy of the tree (bin/gencheck),
# so it runs beside the Go tests instead of before them.
GENCHECK := $(BIN)/gencheck
check-generated:
	rm -rf $(GENCHECK) && mkdir -p $(GENCHECK)
	git ls-files -z | grep -zv '^frontend/' | xargs -0 cp -d --parents -t $(GENCHECK)
	cd $(GENCHECK) && $(GO) generate ./graph
	@diff -r graph $(GENCHECK)/graph >/dev/null || { diff -ru graph $(GENCHECK)/graph | head -50; \
		echo "graph/ changed under go generate ./graph: run it and commit the result"; exit 1; }
	rm -rf $(GENCHECK)

## lint: gofmt, go vet and golangci-lint (.golangci.yaml; the version pinned in tools/go.mod, built from the Go module proxy)
lint: $(BIN)/golangci-lint
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	$(BIN)/golangci-lint run ./...

$(BIN)/golangci-lint: tools/go.mod tools/go.sum
	$(GO) build -C tools -o ../$(BIN)/golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint

## test-deploy: render the Helm chart and validate it and deploy/kubernetes: helm lint, then kubeconform against the schemas in deploy/schemas (no network); helm and kubeconform are pinned in tools/deploy/go.mod and built from the Go module proxy
CHART := deploy/helm/jobwheel
K8S_SCHEMAS := deploy/schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json
test-deploy: $(BIN)/helm $(BIN)/kubeconform
	$(BIN)/helm lint --strict $(CHART)
	@mkdir -p $(BIN)/deploy
	$(BIN)/helm template jobwheel $(CHART) > $(BIN)/deploy/chart-defaults.yaml
	$(BIN)/helm template jobwheel $(CHART) --values deploy/helm/ci-values.yaml > $(BIN)/deploy/chart-ci.yaml
	$(BIN)/kubeconform -strict -summary -schema-location '$(K8S_SCHEMAS)' \
		$(BIN)/deploy/chart-defaults.yaml $(BIN)/deploy/chart-ci.yaml deploy/kubernetes/jobwheel.yaml
	@# The schemas must also catch mistakes: each object of broken.yaml is invalid.
	@$(BIN)/kubeconform -strict -summary -schema-location '$(K8S_SCHEMAS)' deploy/schemas/testdata/broken.yaml | \
		grep -q 'Valid: 0, Invalid: 5, Errors: 0' || { echo "kubeconform no longer rejects every object of deploy/schemas/testdata/broken.yaml"; exit 1; }

$(BIN)/helm: tools/deploy/go.mod tools/deploy/go.sum
	$(GO) build -C tools/deploy -o ../../$(BIN)/helm helm.sh/helm/v3/cmd/helm

$(BIN)/kubeconform: tools/deploy/go.mod tools/deploy/go.sum
	$(GO) build -C tools/deploy -o ../../$(BIN)/kubeconform github.com/yannh/kubeconform/cmd/kubeconform

## deploy-schemas: regenerate deploy/schemas from the Go types of k8s.io/api pinned in tools/deploy/go.mod
deploy-schemas:
	$(GO) run -C tools/deploy ./k8sschema -out ../../deploy/schemas

## test-go: Go unit and db tests (SQLite and PostgreSQL), with the race detector; fuzz seed corpora run here too
test-go:
	./scripts/gotest-summary.sh test-output/unit.log -race -count=1 $(RACE_PKGS)
	./scripts/gotest-summary.sh test-output/unit-norace.log -count=1 $(addprefix ./,$(NORACE_PKGS))

## test-python: the Python worker SDK's unit tests (the conformance kit runs it against a server in test-go), its types (mypy --strict, against Python 3.9's standard library: pyproject.toml), and that it installs with pip
test-python:
	cd worker/python && python3 -m unittest
	@# Debian's mypy, run by Debian's Python (3.11), whichever python3 is first on PATH.
	cd worker/python && /usr/bin/mypy --strict jobwheel examples
	./scripts/python-sdk-install.sh

## test-java: the Java worker SDK's unit tests (JUnit 5), then its jars (worker/java/*/target), which the conformance kit (test-go) and the e2e tests run; Maven works offline against Debian's jars
# Maven Central is not reachable here: Debian packages the jars (and the
# Maven plugins) the Java worker builds against under /usr/share/maven-repo.
JAVA_DEBS := openjdk-17-jdk-headless maven libjackson2-databind-java junit5 libmaven-compiler-plugin-java \
	libmaven-resources-plugin-java libsurefire-java libmaven-jar-plugin-java libmaven-dependency-plugin-java
MVN_FLAGS := -B -q -o -Dmaven.repo.local=/usr/share/maven-repo
test-java:
	cd worker/java && mvn $(MVN_FLAGS) package

## test-frontend: the console's generated types are current, it typechecks and lints, and its component tests pass
test-frontend: frontend/node_modules
	cd frontend && npm run codegen:check && npm run typecheck && npm run lint && npm test

# The end-to-end tests mostly wait (on processes starting, fires coming due,
# fail-overs): go test's default of GOMAXPROCS tests at once leaves a 2-core
# machine half idle through them.
E2E_PARALLEL ?= 4
## test-e2e: real server and worker processes, PostgreSQL, and Chromium, and Dex and Jaeger (e2e-tools); needs the console built
test-e2e: console e2e/browser/node_modules
	@mkdir -p $(BIN)
	@# make test's other lane builds Dex and Jaeger (tools): wait for that, or build them.
	flock $(BIN)/.tools.lock $(MAKE) --no-print-directory e2e-tools
	./scripts/gotest-summary.sh test-output/e2e.log -count=1 -timeout 15m -parallel $(E2E_PARALLEL) ./e2e/...

## bench: the benchmark harness (real server, agents and PostgreSQL; one JSON object per scenario), then the Go micro-benchmarks
##   BENCH_FLAGS="-scenario shell -shell-sweep 50,100,200,500 -seconds 20 -profile prof -bin bin/bench-abc123" (go run ./e2e/bench -h lists them)
bench:
	$(GO) run ./e2e/bench $(BENCH_FLAGS)
	$(GO) test -run '^$$' -bench . -benchmem ./server/runtime/trigger/wheel/ ./server/schedule/cron/

## bench-bin: build COMMIT's server and agent into bin/bench-COMMIT, to bench them side by side with this tree's (BENCH_FLAGS="-bin bin/bench-COMMIT")
bench-bin:
	@test -n "$(COMMIT)" || { echo "make bench-bin COMMIT=<revision>"; exit 2; }
	rm -rf $(BIN)/bench-$(COMMIT).src && mkdir -p $(BIN)/bench-$(COMMIT).src
	git archive $(COMMIT) | tar -x -C $(BIN)/bench-$(COMMIT).src
	@# Commits before the binaries moved under cmd/ kept them at ./server and ./worker/agent.
	cd $(BIN)/bench-$(COMMIT).src && if [ -d cmd/jobwheel-server ]; then s=./cmd/jobwheel-server a=./cmd/jobwheel-agent; else s=./server a=./worker/agent; fi && \
		$(GO) build -o ../bench-$(COMMIT)/jobwheel-server $$s && $(GO) build -o ../bench-$(COMMIT)/jobwheel-agent $$a
	rm -rf $(BIN)/bench-$(COMMIT).src

## fuzz: run every Go fuzz target in turn, each for FUZZTIME (default 1m; e.g. make fuzz FUZZTIME=10m), with FUZZPARALLEL workers (default 1); FUZZ_TARGETS names some only
fuzz:
	FUZZTIME=$(or $(FUZZTIME),1m) FUZZPARALLEL=$(or $(FUZZPARALLEL),1) ./scripts/fuzz.sh $(FUZZ_TARGETS)

## soak: the chaos soak (not part of make test): 3 servers, 6 agents, PostgreSQL, a mix of every kind of work under seeded faults for SOAK_DURATION (default 3m; SOAK_SEED repeats a schedule), then an auditor; one JSON line, exit 1 on a violation. SOAK_DB=patroni runs it on an HA PostgreSQL (Patroni, a synchronous standby, HAProxy) and adds the database faults: the primary killed -9, a planned switchover
soak: $(if $(filter patroni,$(SOAK_DB)),system-deps)
	$(GO) run ./e2e/soak -duration $(or $(SOAK_DURATION),3m) $(if $(SOAK_SEED),-seed $(SOAK_SEED)) $(if $(SOAK_DB),-db $(SOAK_DB))

clean:
	rm -rf $(BIN) e2e/output test-output
