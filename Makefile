# fan — build, test and measure.
GO      ?= go
BIN     ?= bin/fan
PREFIX  ?= /usr/local
SHARED  ?= ../shared

.PHONY: build test lint man bench install clean

## build: a static binary (CGO_ENABLED=0): no dynamic loader at start-up,
## which saves about 3 ms of every `fan` run; without the symbol table and
## DWARF (-s -w), another 0.5-1 ms (see BENCHMARKS.md). Panics still show
## their stack traces.
build:
	CGO_ENABLED=0 $(GO) build -ldflags="-s -w" -o $(BIN) .

## test: every unit, fuzz-seed, end-to-end and differential test, under the race detector
## (the end-to-end package runs its tests 16 at a time: parallelTests in main_test.go)
test:
	$(GO) test -race -count=1 -timeout 14m ./...

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...

## man: regenerate man/fan.1 from the command's flags
man:
	$(GO) run ./internal/mangen > man/fan.1

## bench: run the shared workloads against fan, xargs and GNU parallel in one
## run, then fan's extra workloads (bench/extra.sh), and print medians and
## ratios. Knobs pass through as make or environment variables, e.g.
##   make bench N=1000 RUNS=3 WORKLOADS="W1 W2" EXTRA="W1s owncpu"
## (bench.sh: TOOLS WORKLOADS N RUNS RUNS_SHORT W3_BYTES W3_JOBS W3_MODES;
## extra.sh: EXTRA J1000_N). Results go to BENCH_RESULTS.
BENCH_RESULTS ?= $(or $(TMPDIR),/tmp)/fan-bench/$(shell date -u +%Y%m%dT%H%M%SZ)
bench: build
	mkdir -p $(BENCH_RESULTS)
	RESULTS=$(BENCH_RESULTS) FAN_BIN=$(CURDIR)/$(BIN) $(SHARED)/bench/bench.sh
	RESULTS=$(BENCH_RESULTS) FAN_BIN=$(CURDIR)/$(BIN) SHARED_BENCH=$(SHARED)/bench \
		bench/extra.sh > $(BENCH_RESULTS)/extra.md
	$(SHARED)/bench/report.py $(BENCH_RESULTS) | tee $(BENCH_RESULTS)/report.md
	cat $(BENCH_RESULTS)/extra.md
	@echo "results: $(BENCH_RESULTS)"

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/fan
	install -m 0644 man/fan.1 $(DESTDIR)$(PREFIX)/share/man/man1/fan.1
	ln -sf fan $(DESTDIR)$(PREFIX)/bin/sem   # fan answers as GNU parallel's sem

clean:
	rm -rf bin
