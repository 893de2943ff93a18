# uiscope: make demo (a first look), make test (everything CI runs), make bench
# (the benchmarks, and docs/performance.md's tables from them), make golden
# (rewrite the golden files after a change to what a tool answers).
# Each target installs the Debian packages it needs (scripts/install-deps.sh;
# root or sudo) and Go modules through the module proxy.

GO       ?= go
BIN      := bin/uiscope
PKGS     := ./...
TESTFLAGS ?= -race -count=1 -timeout 80m

# Systems uiscope must build and vet on besides Linux (a backend that
# answers notSupported until one of their own arrives).
CROSS_GOOS := windows darwin

.PHONY: all build deps demo-deps demo test lint cross unit golden bench fuzz interop clean

all: build

# Every Debian package the tests, benchmarks and demo need; demo-deps only
# the demo's (the sandbox desktop and gtk3-widget-factory).
deps:
	@bash scripts/install-deps.sh

demo-deps:
	@bash scripts/install-deps.sh --demo

build:
	$(GO) build -o $(BIN) ./cmd/uiscope

demo: demo-deps build
	./$(BIN) demo

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet $(PKGS)
	$(GO) tool staticcheck $(PKGS)
	$(GO) mod tidy -diff
	@$(MAKE) --no-print-directory cross

cross:
	@for os in $(CROSS_GOOS); do \
		echo "GOOS=$$os $(GO) build + vet $(PKGS)"; \
		GOOS=$$os $(GO) build $(PKGS) && GOOS=$$os $(GO) vet $(PKGS) || exit 1; \
	done

test: deps lint
	$(GO) test $(TESTFLAGS) $(PKGS)

# No desktop: -short skips every test that starts one (Xvfb, buses). The
# race detector's runtime sleeps a second as each test binary exits, for
# reports still being written: the tests have reported their races by then
# (a race fails the test it happens in), so unit does without the sleep.
unit:
	GORACE="atexit_sleep_ms=0 $$GORACE" $(GO) test -race -short $(PKGS)

# Golden files (tool schemas, transcripts, the generated tables in the README
# and docs): every package whose tests take -update (a flag.Bool("update") in
# a _test.go file) runs its tests with it and rewrites its files; then the
# change to everything but Go files shows, new files listed with ??. Review
# it, and commit it with the change that caused it.
golden:
	@pkgs=$$(grep -rl --include='*_test.go' 'flag.Bool("update"' . | xargs -r -n1 dirname | sort -u); \
	test -n "$$pkgs" || { echo 'golden: no package takes -update'; exit 1; }; \
	echo $(GO) test -count=1 $$pkgs -update; \
	$(GO) test -count=1 $$pkgs -update
	@git --no-pager diff --stat -- ':!*.go'
	@git --no-pager diff -- ':!*.go'
	@git status --short --untracked-files=all -- ':!*.go' | grep '^??' || true

# The benchmarks into bench.out, then docs/performance.md's latest-run
# tables and the README's agent task table rewritten from it
# (bench/benchtable; a run without results leaves them as they were). The
# agent tasks run once each way (every run launches its app afresh), the
# other e2e benchmarks 10 times: '^Benchmark[^A]' is every e2e benchmark
# but BenchmarkAgentTasks.
bench: deps build
	$(GO) test -run '^$$' -bench '^Benchmark[^A]' -benchtime 10x -count 1 -timeout 60m ./e2e/ | tee bench.out
	$(GO) test -run '^$$' -bench '^BenchmarkAgentTasks$$' -benchtime 1x -count 1 -timeout 30m ./e2e/ | tee -a bench.out
	$(GO) test -run '^$$' -bench ValuesCost -benchtime 40x -count 1 -timeout 20m ./internal/platform/atspi/ | tee -a bench.out
	@bash scripts/bench-rss.sh | tee -a bench.out
	$(GO) run ./bench/benchtable -in bench.out -doc docs/performance.md -readme README.md

# Each fuzz target in turn (go test -fuzz takes one at a time).
FUZZTIME ?= 20s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseRef$$' -fuzztime $(FUZZTIME) ./internal/core/
	$(GO) test -run '^$$' -fuzz '^FuzzQueryCompile$$' -fuzztime $(FUZZTIME) ./internal/core/
	$(GO) test -run '^$$' -fuzz '^FuzzParseWindowID$$' -fuzztime $(FUZZTIME) ./internal/core/
	$(GO) test -run '^$$' -fuzz '^FuzzParseChord$$' -fuzztime $(FUZZTIME) ./internal/platform/
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./internal/platform/wayland/
	$(GO) test -run '^$$' -fuzz '^FuzzSplitWords$$' -fuzztime $(FUZZTIME) ./cmd/uiscope/

# The official TypeScript SDK client against a real `uiscope mcp --sandbox`
# (not part of make test: it needs node and the npm registry).
interop: deps build
	cd testdata/interop && npm install --no-audit --no-fund --silent
	UISCOPE_BIN=$(CURDIR)/$(BIN) node testdata/interop/ts_client.mjs

clean:
	rm -rf bin bench.out
