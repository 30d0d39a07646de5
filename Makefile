# fan — build, test and measure.
GO      ?= go
BIN     ?= bin/fan
PREFIX  ?= /usr/local
SHARED  ?= ../shared

.PHONY: build test lint man bench install clean

build:
	$(GO) build -o $(BIN) .

## test: every unit, fuzz-seed, end-to-end and differential test, under the race detector
test:
	$(GO) test -race -count=1 ./...

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...

## man: regenerate man/fan.1 from the command's flags
man:
	$(GO) run ./internal/mangen > man/fan.1

## bench: run the shared workloads against fan, xargs and GNU parallel in one run
bench: build
	FAN_BIN=$(CURDIR)/$(BIN) $(SHARED)/bench/bench.sh

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/fan
	install -m 0644 man/fan.1 $(DESTDIR)$(PREFIX)/share/man/man1/fan.1

clean:
	rm -rf bin
