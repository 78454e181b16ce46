// Command api serves foiaflow's HTTP API (package api): signed inbound-email
// webhooks, cases, the review queue, reviewer decisions, agent state,
// orphans, API keys, health, metrics and the asynqmon UI.
//
//	api [-migrate]   serve on API_ADDR (applying migrations first with -migrate)
//	api migrate      apply migrations and exit
//
// SIGINT/SIGTERM stop accepting connections and let in-flight requests
// finish (up to 15 s).
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
		fmt.Fprintln(os.Stderr, "api:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("api", flag.ContinueOnError)
	migrate := fs.Bool("migrate", false, "apply database migrations before starting")
	if err := fs.Parse(args); err != nil {
		return err
	}
	onlyMigrate := fs.Arg(0) == "migrate"
	if fs.NArg() > 0 && !onlyMigrate {
		return fmt.Errorf("unknown command %q (want: migrate)", fs.Arg(0))
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
	a, err := app.Open(ctx, cfg, log, *migrate || onlyMigrate)
	if err != nil {
		return err
	}
	if onlyMigrate {
		a.Close()
		return nil
	}
	m, err := NewAPI(a)
	if err != nil {
		a.Close()
		return err
	}
	defer m.Close()
	return m.Run(ctx)
}
