// Package runner turns items into processes: it parses the command template
// once, renders it per job (quoting every substituted value for the shell,
// or building argv directly when no shell is needed), runs each job in its
// own process group and reports one Result per item. It knows nothing of
// terminals or files.
//
// Against the design's invariants: a grouped job's output is held in
// memory files up to a budget a job and in all, and spills to unlinked
// temporary files beyond it (bounded memory: capture_pipe.go); the capture
// pipes are watched by one loop that the pool's Run starts, and stops
// after waiting for its mover goroutines (every goroutine has an owner:
// capture_poll.go); a job's run waits for its pipes' end up to
// captureGrace, then leaves a pipe an escaped process holds to the loop
// until the run ends.
package runner

// appendQuote appends s to b as a single word for a POSIX shell. Words made
// only of characters no shell treats specially are appended bare, so that
// templates such as `echo $(( {} * 2 ))` keep working; anything else is put
// in single quotes, with each embedded single quote written as
//
//	'\''
func appendQuote(b []byte, s string) []byte {
	if isPlain(s) {
		return append(b, s...)
	}
	return appendQuoted(b, s)
}

func appendQuoted(b []byte, s string) []byte {
	b = append(b, '\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			b = append(b, `'\''`...)
		} else {
			b = append(b, s[i])
		}
	}
	return append(b, '\'')
}

// isPlain reports whether s is non-empty and made only of characters that no
// shell interprets in any position of a word.
func isPlain(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '_', c == '-', c == '.', c == '/', c == ',', c == ':', c == '@', c == '+', c == '%':
		default:
			return false
		}
	}
	return true
}
