package main

import (
	"context"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/cmd/internal/app"
	"github.com/foiaflow/foiaflow/store/storetest"
)

// One of two schedulers leads; when the leader's session dies the standby
// takes over.
func TestLeaderElectionFailover(t *testing.T) {
	t.Parallel()
	a1 := app.OpenTest(t, nil)
	c2 := a1.Config
	a2, err := app.Open(context.Background(), c2, a1.Log.Named("s2"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Close()
	s1, s2 := NewScheduler(a1), NewScheduler(a2)
	ctx1, stop1 := context.WithCancel(context.Background())
	ctx2, stop2 := context.WithCancel(context.Background())
	defer stop2()
	done1 := make(chan error, 1)
	go func() { done1 <- s1.Run(ctx1) }()
	storetest.Eventually(t, 10*time.Second, "s1 leads", s1.IsLeader)
	go func() { _ = s2.Run(ctx2) }()
	// s2 must stay a standby while s1 leads.
	deadline := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if s2.IsLeader() {
			t.Fatal("two leaders at once")
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop1() // the leader dies: its session and lock go away
	<-done1
	storetest.Eventually(t, 10*time.Second, "s2 takes over", s2.IsLeader)
}

// The stale-proposal digest is queued from STALE_DIGEST_HOUR (UTC) on, once
// for the day: before the hour nothing is claimed; after it the day is
// claimed (here with nothing stale, so nothing is posted) and later passes
// leave it alone.
func TestStaleDigestWaitsForItsHour(t *testing.T) {
	t.Parallel()
	a := app.OpenTest(t, func(c *app.Config) {
		c.EscalationWebhookURL, c.EscalationWebhookSecret = "http://127.0.0.1:9/desk-hook", "desk-webhook-secret"
		c.StaleDigestHour, c.StaleProposalAge = 9, 48*time.Hour
	})
	s := NewScheduler(a)
	ctx := context.Background()
	claimed := func() int {
		var n int
		if err := a.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM stale_digests WHERE day = '2026-11-25'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		hour, claimed int
	}{{8, 0}, {9, 1}, {17, 1}} {
		s.Now = func() time.Time { return time.Date(2026, 11, 25, c.hour, 30, 0, 0, time.UTC) }
		if n, err := s.staleDigest(ctx); err != nil || n != 0 {
			t.Fatalf("%02d:30: queued %d: %v", c.hour, n, err)
		}
		if got := claimed(); got != c.claimed {
			t.Fatalf("%02d:30: %d digest rows, want %d", c.hour, got, c.claimed)
		}
	}
}
