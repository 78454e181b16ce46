package mail

import (
	"crypto/sha256"
	"encoding/binary"
	"time"

	"github.com/foiaflow/foiaflow/clock"
)

// SendPolicy is when outbound mail may leave (DESIGN.md "Email": send time
// inside agency business hours with jitter derived from the execution key).
type SendPolicy struct {
	// Location is the agency's time zone; nil means America/New_York.
	Location *time.Location
	// StartHour and EndHour bound business hours [StartHour:00, EndHour:00)
	// local time on business days (weekdays that are not observed federal
	// holidays, see clock.IsBusinessDay). Both zero, or an invalid pair,
	// means 9 to 17.
	StartHour, EndHour int
	// MaxJitter bounds the delay added after the opening: jitter is in
	// [0, MaxJitter), whole seconds.
	MaxJitter time.Duration
}

// SendTime returns when an email for executionKey should be sent (UTC): now
// if inside business hours, else the next business-hours opening; then
// Jitter(executionKey, MaxJitter) of business-hours time is added (jitter
// that would cross the closing hour continues at the next opening), so the
// result always lies inside business hours.
//
// The jitter is the same for the same key, but the base depends on now:
// compute the send time once when the send is scheduled and store it
// (DESIGN.md "Seed traps": never recompute a delay on retry).
func SendTime(now time.Time, executionKey string, p SendPolicy) time.Time {
	p = p.normalized()
	t := nextOpen(now.In(p.Location), p)
	remaining := Jitter(executionKey, p.MaxJitter)
	for {
		closing := time.Date(t.Year(), t.Month(), t.Day(), p.EndHour, 0, 0, 0, p.Location)
		left := closing.Sub(t)
		if remaining < left {
			return t.Add(remaining).UTC()
		}
		remaining -= left
		t = nextOpen(closing, p)
	}
}

// Jitter returns a delay in [0, max) in whole seconds derived from
// SHA-256(executionKey): the same key always gets the same delay (never
// random). It is 0 when max < 1s.
func Jitter(executionKey string, max time.Duration) time.Duration {
	n := uint64(max / time.Second)
	if n == 0 {
		return 0
	}
	sum := sha256.Sum256([]byte(executionKey))
	return time.Duration(binary.BigEndian.Uint64(sum[:8])%n) * time.Second
}

// nextOpen returns t when it is inside business hours, else the next
// opening (StartHour on the next business day, or today if before opening).
func nextOpen(t time.Time, p SendPolicy) time.Time {
	for {
		day := clock.DateOf(t, p.Location)
		if clock.IsBusinessDay(day) {
			open := time.Date(day.Year, day.Month, day.Day, p.StartHour, 0, 0, 0, p.Location)
			closing := time.Date(day.Year, day.Month, day.Day, p.EndHour, 0, 0, 0, p.Location)
			if t.Before(open) {
				return open
			}
			if t.Before(closing) {
				return t
			}
		}
		next := day.AddDays(1)
		t = time.Date(next.Year, next.Month, next.Day, 0, 0, 0, 0, p.Location)
	}
}

func (p SendPolicy) normalized() SendPolicy {
	if p.Location == nil {
		p.Location = clock.DefaultLocation()
	}
	if p.StartHour < 0 || p.EndHour > 24 || p.StartHour >= p.EndHour {
		p.StartHour, p.EndHour = 9, 17
	}
	if p.MaxJitter < 0 {
		p.MaxJitter = 0
	}
	return p
}
