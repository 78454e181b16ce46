package fleet

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Step prints one progress line of a harness, "==> 15:04:05 <message>".
func Step(format string, args ...any) {
	fmt.Printf("==> %s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// Main runs a harness (chaos, attack) under SIGINT/SIGTERM and an overall
// timeout, and exits: 2 with "<name> FAILED: <err>" when run errs, 1 when
// its checks failed, 0 otherwise.
func Main(name string, timeout time.Duration, run func(context.Context) (failed bool, err error)) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	failed, err := run(ctx)
	cancel()
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+" FAILED:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}
