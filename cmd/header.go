package cmd

import (
	"errors"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/fan-run/fan/input"
)

// Argument mode's --header, as GNU parallel's: the first record of each
// input source is not an item but names its columns, split at --colsep
// (a tab without one), counted across the sources in order, so that
// {name} stands for {n}. --header 0 names each file source by its file
// name instead, reading nothing. (In pipe mode --header is the block
// header: see checkPipe.)

// headerTab is what splits a header, and the items, with --header and no
// --colsep, as in GNU parallel.
var headerTab = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\t") })

// checkHeader derives what argument mode's --header changes before any
// input is read: the column separator, and the names of --header 0.
func (c *Config) checkHeader() error {
	h := c.Input.Pipe.Header
	if h == "" || c.Input.Pipe.on() {
		return nil
	}
	if c.Xargs {
		return usageErrorf("--header does not go with --xargs (xargs has no header line; drop one of them)")
	}
	if c.colsep == nil {
		c.colsep = headerTab()
	}
	if h == "0" {
		c.names = map[string]int{}
		for i, s := range c.sources {
			if s.File != "" {
				c.names[s.File] = i + 1
			}
		}
	}
	return nil
}

// readHeader takes the first record of each source as its header, names
// the columns, and builds the command template again with the names. It
// is called once the sources are open, before any item is read.
func (c *Config) readHeader(srcs []input.Source) error {
	h := c.Input.Pipe.Header
	if h == "" || h == "0" || c.Input.Pipe.on() {
		return nil
	}
	c.names = map[string]int{}
	n := 0
	for _, src := range srcs {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			continue // an empty source has no header, as in GNU parallel
		}
		if err != nil {
			return &inputError{err}
		}
		for _, name := range c.colsep.Split(strings.TrimSuffix(rec, "\r"), -1) {
			n++
			c.columns = append(c.columns, name)
			// An empty name would make {.} and {/} name it.
			if _, dup := c.names[name]; !dup && name != "" {
				c.names[name] = n
			}
		}
	}
	return c.buildTemplate()
}
