// Package input turns fan's input sources (stdin, files, ::: lists) into a
// stream of numbered items, one per job. It knows nothing of processes or
// terminals.
package input

// Item is the input of one job.
type Item struct {
	// Seq is the job number: 1-based, in input order ({#}).
	Seq int64
	// Args are the positional values {1}..{n}: the columns of every record
	// that makes up the job, in order. {} is all of them.
	Args []string
	// Records are the input records the item was built from, exactly as they
	// were read (without their delimiter), one per source and per batched
	// line. Re-reading them rebuilds the same job.
	Records []string
}
