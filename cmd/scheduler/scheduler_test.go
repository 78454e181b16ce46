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
