// Command scheduler runs foiaflow's leader-elected loops: the follow-up due
// sweep (one time_based_followup run per case and due date), the outbox
// relay, the reaper of stranded runs (I6) and retention of step history.
// Run two for availability: one leads, the other stands by.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/foiaflow/foiaflow/cmd/internal/app"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "scheduler:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("scheduler", flag.ContinueOnError)
	migrate := fs.Bool("migrate", false, "apply database migrations before starting")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := app.Load()
	if err != nil {
		return err
	}
	log, err := app.NewLogger(cfg)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a, err := app.Open(ctx, cfg, log, *migrate)
	if err != nil {
		return err
	}
	s := NewScheduler(a)
	defer s.Close()
	return s.Run(ctx)
}
