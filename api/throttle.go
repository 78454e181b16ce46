package api

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// authWindow is the window over which failed authentications are counted.
const authWindow = time.Minute

// maxThrottled bounds the identities the throttle tracks; past it, expired
// entries are dropped and new identities are not tracked until room frees
// up (memory stays bounded whatever an attacker sends).
const maxThrottled = 100_000

// authThrottle counts failed authentications per source address and per
// presented key over fixed one-minute windows (in this process). Once an
// identity reaches the limit, every request from that address, or carrying
// that key, is answered 429 with Retry-After until its window ends — even
// with a valid key, so a guesser learns nothing more. Successful
// authentications do not reset the count.
type authThrottle struct {
	limit int
	now   func() time.Time
	mu    sync.Mutex
	seen  map[string]*failures
}

type failures struct {
	count int
	since time.Time
}

func newAuthThrottle(limit int, now func() time.Time) *authThrottle {
	return &authThrottle{limit: limit, now: now, seen: map[string]*failures{}}
}

// authIdentities are the throttle keys of r: its source address (an IPv6
// address by its /64, which one host can rotate through) and, when a key
// was presented, the key's hash (never the key itself).
func authIdentities(r *http.Request, key string) []string {
	ids := []string{"addr:" + sourceAddr(r)}
	if key != "" {
		sum := sha256.Sum256([]byte(key))
		ids = append(ids, "key:"+hex.EncodeToString(sum[:8]))
	}
	return ids
}

// sourceAddr is the client address of r's connection (no proxy headers are
// trusted).
func sourceAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// blocked returns how long the first throttled identity of ids stays
// throttled, or 0.
func (t *authThrottle) blocked(ids []string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	for _, id := range ids {
		f := t.seen[id]
		if f == nil || now.Sub(f.since) >= authWindow {
			continue
		}
		if f.count >= t.limit {
			return f.since.Add(authWindow).Sub(now)
		}
	}
	return 0
}

// fail counts one failed authentication against each of ids.
func (t *authThrottle) fail(ids []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	for _, id := range ids {
		f := t.seen[id]
		switch {
		case f != nil && now.Sub(f.since) < authWindow:
			f.count++
		case f != nil:
			f.count, f.since = 1, now
		default:
			if len(t.seen) >= maxThrottled && !t.sweep(now) {
				continue
			}
			t.seen[id] = &failures{count: 1, since: now}
		}
	}
}

// sweep drops expired entries and reports whether there is room again.
func (t *authThrottle) sweep(now time.Time) bool {
	for id, f := range t.seen {
		if now.Sub(f.since) >= authWindow {
			delete(t.seen, id)
		}
	}
	return len(t.seen) < maxThrottled
}

// errAuthThrottled is the 429 of a throttled identity.
func errAuthThrottled(wait time.Duration) *Error {
	secs := int(math.Ceil(wait.Seconds()))
	return &Error{Status: http.StatusTooManyRequests, Code: "auth_throttled", RetryAfter: max(secs, 1),
		Message: "too many failed authentications from this address or with this key; retry later"}
}
