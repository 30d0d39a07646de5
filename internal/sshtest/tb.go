package sshtest

// TB is the part of testing.TB that Start and WaitClean use, so that a
// program (make bench's hosts) can start hosts as a test does: a
// *testing.T is one.
type TB interface {
	Helper()
	TempDir() string
	Cleanup(func())
	Failed() bool
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Skip(args ...any)
}
