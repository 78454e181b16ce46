// Command demo runs foiaflow end to end on real agency replies, as a new user
// would: it builds and starts api, worker and scheduler against local
// Postgres and Redis (a fresh demo database), creates one case per reply,
// posts each reply as signed RFC 5322 MIME through the inbound webhook, waits
// until every run parks or completes, prints what the agent decided,
// downloads the PDF that the RECORDS_READY reply carried back through the
// API and compares the bytes, approves one fee proposal through the API,
// shows the .eml that was sent,
// shows an appeal proposal and checks that every appeal parked cites the
// exemptions of its denial and the appeal deadline, stops everything
// cleanly and ends with the line
// "demo: cases=N parked=N emails=N attachments=N attachments_verified=N appeals=N".
// Offline analyzer, .eml sink, no API key.
//
// The replies are the embedded MuckRock corpus (dataset package), each
// keeping its source attribution in an X-Corpus-Source header.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	o := options{}
	flag.StringVar(&o.adminURL, "admin-url", envOr("DEMO_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"),
		"Postgres URL used to (re)create the demo database")
	flag.StringVar(&o.dbName, "db", envOr("DEMO_DATABASE", "foiaflow_demo"), "demo database name (dropped and recreated)")
	flag.StringVar(&o.redisAddr, "redis", envOr("REDIS_ADDR", "127.0.0.1:6379"), "Redis address")
	flag.StringVar(&o.dir, "dir", "var/demo", "working directory for binaries, logs and the .eml sink")
	flag.IntVar(&o.cases, "cases", 11, "number of replies to run (at least 10; one per class first)")
	flag.DurationVar(&o.timeout, "timeout", 2*time.Minute, "overall time limit")
	flag.StringVar(&o.screenshots, "screenshots", "", "drive the reviewer desk in headless Chromium, approve the fee proposal in the page and write PNGs to this directory")
	flag.BoolVar(&o.keep, "keep", false, "keep the fleet running after the demo (until Ctrl-C) to open the reviewer desk in a browser")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o.interrupted = ctx.Done()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "demo FAILED:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
