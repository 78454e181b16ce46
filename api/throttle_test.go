package api

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// throttled serves GET /v1/cases from addr with key through srv.
func throttled(t *testing.T, srv *Server, addr, key string) *httptest.ResponseRecorder {
	t.Helper()
	rq := httptest.NewRequest("GET", "/v1/cases", nil)
	rq.RemoteAddr = addr
	if key != "" {
		rq.Header.Set("Authorization", "Bearer "+key)
	}
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, rq)
	return rec
}

// Issue 10 "Loose doors": failed authentications are throttled per source
// address and per presented key (429 with Retry-After), and a throttled
// address is refused even with a valid key until its window ends.
func TestFailedAuthIsThrottledPerAddressAndKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	clock := &fakeClock{t: time.Date(2026, 10, 5, 12, 0, 0, 0, time.UTC)}
	cfg := e.srv.cfg
	cfg.AuthFailuresPerMinute = 3
	d := e.deps()
	d.Now = clock.Now
	srv, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	const attacker, other = "198.51.100.7:4000", "203.0.113.9:5000"
	for i := range 3 {
		if rec := throttled(t, srv, attacker, "ffk_guess"+strconv.Itoa(i)); rec.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i, rec.Code)
		}
	}
	rec := throttled(t, srv, attacker, e.reviewerKey)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "60" {
		t.Fatalf("throttled address with a valid key: %d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if rec := throttled(t, srv, other, e.reviewerKey); rec.Code != http.StatusOK {
		t.Fatalf("another address is throttled too: %d", rec.Code)
	}
	// One key tried from many addresses is throttled by the key.
	for i := range 3 {
		throttled(t, srv, "192.0.2."+strconv.Itoa(10+i)+":1", "ffk_stolen-and-revoked")
	}
	if rec := throttled(t, srv, "192.0.2.99:1", "ffk_stolen-and-revoked"); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("key throttle: %d", rec.Code)
	}
	// IPv6 addresses are throttled by their /64.
	for i := range 3 {
		throttled(t, srv, "[2001:db8:1:2::"+strconv.Itoa(i+1)+"]:1", "")
	}
	if rec := throttled(t, srv, "[2001:db8:1:2::ffff]:1", e.reviewerKey); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("IPv6 /64 throttle: %d", rec.Code)
	}
	clock.Add(30 * time.Second)
	if got := throttled(t, srv, attacker, e.reviewerKey).Header().Get("Retry-After"); got != "30" {
		t.Fatalf("Retry-After %q after 30 s, want 30", got)
	}
	clock.Add(31 * time.Second)
	if rec := throttled(t, srv, attacker, e.reviewerKey); rec.Code != http.StatusOK {
		t.Fatalf("after the window: %d", rec.Code)
	}
}

func TestAuthThrottleMemoryIsBounded(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 10, 5, 12, 0, 0, 0, time.UTC)
	th := newAuthThrottle(3, func() time.Time { return now })
	for i := range maxThrottled + 10 {
		th.fail([]string{"addr:" + strconv.Itoa(i)})
	}
	if len(th.seen) > maxThrottled {
		t.Fatalf("%d entries tracked, bound %d", len(th.seen), maxThrottled)
	}
	now = now.Add(authWindow)
	th.fail([]string{"addr:new"})
	if len(th.seen) != 1 {
		t.Fatalf("expired entries not swept: %d", len(th.seen))
	}
}
