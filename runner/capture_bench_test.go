package runner

import "testing"

// BenchmarkCaptureSilent is the capture of a job that writes nothing: its
// two pipes made and watched, their write ends closed as the job's exit
// closes them, and their end taken. Run with -cpu 1, its time is the CPU
// the capture costs a job on top of the spawn (BenchmarkPoolTrueCaptured).
func BenchmarkCaptureSilent(b *testing.B) {
	sp := &memSpool{testSpool: testSpool{dir: b.TempDir()}, job: 1 << 20, total: 64 << 20}
	poll, err := startCapturePoll(0, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer poll.close()
	b.ReportAllocs()
	for b.Loop() {
		jc, err := newJobCapture(sp, poll, false)
		if err != nil {
			b.Fatal(err)
		}
		jc.started()
		out, errf, _, _ := jc.results()
		if out != nil || errf != nil {
			b.Fatal("a silent job's capture kept a file")
		}
	}
}
