# fan — build, test and measure.
GO      ?= go
BIN     ?= bin/fan
PREFIX  ?= /usr/local
SHARED  ?= ../shared

.PHONY: build test lint man completions bench install clean fuzz

## build: a static binary (CGO_ENABLED=0): no dynamic loader at start-up,
## which saves about 3 ms of every `fan` run; without the symbol table and
## DWARF (-s -w), another 0.5-1 ms (see BENCHMARKS.md). Panics still show
## their stack traces.
build:
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -ldflags="-s -w" -o $(BIN) .

## test: every unit, fuzz-seed, end-to-end and differential test, under the race detector
## (the end-to-end package runs its tests 16 at a time: parallelTests in main_test.go)
test:
	$(GO) test -race -count=1 -timeout 14m ./...

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...

## fuzz: run every fuzz target in turn for FUZZTIME each (one at a time: the
## fuzzer takes every core). A failing input lands in the package's
## testdata/fuzz and is a test from then on: commit it with the fix.
FUZZTIME ?= 60s
fuzz:
	@for pkg in ./cmd ./input ./output ./runner; do \
		for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "$$pkg $$t"; \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

## man: regenerate man/fan.1 from the command's flags
man:
	$(GO) run ./internal/mangen > man/fan.1

## bench: run the shared workloads against fan, xargs and GNU parallel in one
## run, then fan's extra workloads (bench/extra.sh) and the remote one over two
## local sshd hosts (bench/remote.sh: needs root, sshd and GNU parallel, else
## it says it skipped), and print medians and ratios. Knobs pass through as
## make or environment variables, e.g.
##   make bench N=1000 RUNS=3 WORKLOADS="W1 W2" EXTRA="W1s owncpu"
## (bench.sh: TOOLS WORKLOADS N RUNS RUNS_SHORT W3_BYTES W3_JOBS W3_MODES;
## extra.sh: EXTRA J1000_N W1RP_N, RUSTPAR_BIN for W1rp; its pipe-mode workloads, bench/pipe.sh: PIPE_BYTES
## PIPE_BLOCK PIPE_RUNS PIPE_DIR; remote.sh: N_REMOTE RUNS_REMOTE REMOTE).
## EXTRA="" or EXTRA=none leaves out extra.sh's rows, REMOTE="" or
## REMOTE=none remote.sh's (no hosts are started). Results go to BENCH_RESULTS.
BENCH_RESULTS ?= $(or $(TMPDIR),/tmp)/fan-bench/$(shell date -u +%Y%m%dT%H%M%SZ)
bench: build
	mkdir -p $(BENCH_RESULTS)
	RESULTS=$(BENCH_RESULTS) FAN_BIN=$(CURDIR)/$(BIN) $(SHARED)/bench/bench.sh
	RESULTS=$(BENCH_RESULTS) FAN_BIN=$(CURDIR)/$(BIN) SHARED_BENCH=$(SHARED)/bench \
		bench/extra.sh > $(BENCH_RESULTS)/extra.md
	RESULTS=$(BENCH_RESULTS) FAN_BIN=$(CURDIR)/$(BIN) SHARED_BENCH=$(SHARED)/bench \
		bench/remote.sh > $(BENCH_RESULTS)/remote.md
	$(SHARED)/bench/report.py $(BENCH_RESULTS) | tee $(BENCH_RESULTS)/report.md
	cat $(BENCH_RESULTS)/extra.md $(BENCH_RESULTS)/remote.md
	@echo "results: $(BENCH_RESULTS)"

## completions: the bash, zsh and fish completion scripts, written by the
## fan just built (fan --completion SHELL) into COMPLETIONS
COMPLETIONS ?= $(dir $(BIN))completions
completions: build
	mkdir -p $(COMPLETIONS)
	$(BIN) --completion bash > $(COMPLETIONS)/fan.bash
	$(BIN) --completion zsh > $(COMPLETIONS)/_fan
	$(BIN) --completion fish > $(COMPLETIONS)/fan.fish

## install: the binary, the man page and the completions under PREFIX, in
## the directories where bash-completion, zsh and fish look for them
## (DESTDIR is put in front, for packaging)
install: build completions
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/fan
	install -m 0644 man/fan.1 $(DESTDIR)$(PREFIX)/share/man/man1/fan.1
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 0644 $(COMPLETIONS)/fan.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/fan
	install -m 0644 $(COMPLETIONS)/_fan $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_fan
	install -m 0644 $(COMPLETIONS)/fan.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/fan.fish
	ln -sf fan $(DESTDIR)$(PREFIX)/bin/sem   # fan answers as GNU parallel's sem

clean:
	rm -rf bin
