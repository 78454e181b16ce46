// Command worker runs foiaflow's asynq server: one graph step per agent:step
// task under the case's advisory lock, reviewer decisions (agent:resume) and
// email sends (email:send).
//
//	worker [-migrate]   run (applying migrations first with -migrate)
//	worker migrate      apply migrations and exit
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
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
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
	w, err := NewWorker(a)
	if err != nil {
		a.Close()
		return err
	}
	defer w.Close()
	return w.Run(ctx)
}
