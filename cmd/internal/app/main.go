package app

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Process is a long-running foiaflow process built on an opened App.
type Process interface {
	Run(ctx context.Context) error
	Close()
}

// Main is the shared main of the three binaries:
//
//	NAME [-migrate]   run (applying migrations first with -migrate)
//	NAME migrate      apply migrations and exit
//
// It loads the configuration, builds the logger, opens the App, builds the
// process with build and runs it until SIGINT/SIGTERM. Errors are printed as
// "NAME: error" and exit with status 1.
func Main(name string, build func(*App) (Process, error)) {
	if err := run(name, os.Args[1:], build); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

func run(name string, args []string, build func(*App) (Process, error)) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	migrate := fs.Bool("migrate", false, "apply database migrations before starting")
	if err := fs.Parse(args); err != nil {
		return err
	}
	onlyMigrate := fs.Arg(0) == "migrate"
	if fs.NArg() > 0 && !onlyMigrate {
		return fmt.Errorf("unknown command %q (want: migrate)", fs.Arg(0))
	}
	cfg, err := Load()
	if err != nil {
		return err
	}
	log, err := NewLogger(cfg)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a, err := Open(ctx, cfg, log, *migrate || onlyMigrate)
	if err != nil {
		return err
	}
	if onlyMigrate {
		a.Close()
		return nil
	}
	p, err := build(a)
	if err != nil {
		a.Close()
		return err
	}
	defer p.Close()
	return p.Run(ctx)
}
