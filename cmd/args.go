package cmd

import (
	"strings"

	"github.com/fan-run/fan/input"
)

// separators are the arguments that start a group of input sources:
// items (:::, --arg-sep) and files (::::, --arg-file-sep).
type separators struct{ items, files string }

// of tells what an argument starts: a group of items or of files, linked
// to the source before it (:::+, ::::+), or nothing (ok false).
func (s separators) of(arg string) (files, linked, ok bool) {
	base, linked := strings.CutSuffix(arg, "+")
	switch arg {
	case s.items, s.files:
		return arg == s.files, false, true
	case s.items + "+", s.files + "+":
		return base == s.files, linked, true
	}
	return false, false, false
}

// splitArgs separates the command words from the ::: and :::: groups (and
// their linked forms :::+ and ::::+), or the separators --arg-sep and
// --arg-file-sep give.
func splitArgs(args []string, seps separators) (command []string, sources []input.SourceSpec) {
	isSeparator := func(arg string) bool {
		_, _, ok := seps.of(arg)
		return ok
	}
	i := 0
	for i < len(args) && !isSeparator(args[i]) {
		i++
	}
	command = args[:i]
	for i < len(args) {
		files, linked, _ := seps.of(args[i])
		i++
		start := i
		for i < len(args) && !isSeparator(args[i]) {
			i++
		}
		if !files {
			sources = append(sources, input.SourceSpec{List: args[start:i], Linked: linked})
			continue
		}
		for _, f := range args[start:i] {
			sources = append(sources, input.SourceSpec{File: f, Linked: linked})
		}
	}
	return command, sources
}
