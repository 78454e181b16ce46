package inbound

import "testing"

// Issue 10 (make attack: 16 parallel 24 MB posts took the worker to 676 MB
// peak RSS): parses share a byte budget; a message larger than the budget
// parses alone, and a spent budget refuses more until released.
func TestParseBudgetLetsLargeMessagesTakeTurns(t *testing.T) {
	b := NewParseBudget(32 << 20)
	if !b.tryAcquire(24 << 20) {
		t.Fatal("an empty budget refused a 24 MB message")
	}
	if b.tryAcquire(24 << 20) {
		t.Fatal("a second 24 MB message was let in beside the first (48 MB over a 32 MB budget)")
	}
	if !b.tryAcquire(1 << 20) {
		t.Fatal("a 1 MB message was refused with 8 MB of budget left")
	}
	b.release(24 << 20)
	if !b.tryAcquire(24 << 20) {
		t.Fatal("the budget was not returned by release")
	}
	b.release(24 << 20)
	b.release(1 << 20)
	if !b.tryAcquire(100 << 20) {
		t.Fatal("a message larger than the whole budget can never parse")
	}
	if b.tryAcquire(0) {
		t.Fatal("an empty message was let in while a message over the budget holds all of it")
	}
	b.release(100 << 20)
	var none *ParseBudget
	if !none.tryAcquire(1 << 30) {
		t.Fatal("a nil budget must not bound anything")
	}
	none.release(1 << 30)
}
