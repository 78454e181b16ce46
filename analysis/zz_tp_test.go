package analysis

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"

	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/workflow"
)

func cpuNow() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_THREAD, &ru)
	return float64(ru.Utime.Sec) + float64(ru.Utime.Usec)/1e6 + float64(ru.Stime.Sec) + float64(ru.Stime.Usec)/1e6
}

func TestZZThroughputCPU(t *testing.T) {
	runtime.LockOSThread()
	var self0, self1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
	rs, _ := dataset.AllReplies()
	in := make([]workflow.Reply, len(rs))
	for i, r := range rs {
		in[i] = workflow.Reply{Text: r.Text}
	}
	ctx := context.Background()
	n := 0
	start := cpuNow()
	for p := 0; p < 10; p++ {
		for _, r := range in {
			Offline{}.Analyze(ctx, r, workflow.CaseContext{})
			n++
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
	proc := float64(self1.Utime.Sec-self0.Utime.Sec) + float64(self1.Utime.Usec-self0.Utime.Usec)/1e6
	fmt.Printf("process user cpu %.2fs for %d replies = %.0f/s\n", proc, n, float64(n)/proc)
	fmt.Printf("cpu-throughput: %.0f replies per CPU-second\n", float64(n)/(cpuNow()-start))
}
