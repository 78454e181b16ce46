package mail_test

import (
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/mail"
)

func TestSendTimeNoJitter(t *testing.T) {
	t.Parallel()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	chi, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Fatal(err)
	}
	p := mail.SendPolicy{Location: ny, StartHour: 9, EndHour: 17}
	cases := []struct {
		name string
		p    mail.SendPolicy
		now  string // wall time in the policy's zone
		want string
	}{
		{"inside hours: now", p, "2026-12-08 10:30", "2026-12-08 10:30"},
		{"before opening: same day", p, "2026-12-08 06:00", "2026-12-08 09:00"},
		{"at closing: next day", p, "2026-12-08 17:00", "2026-12-09 09:00"},
		{"friday evening: monday", p, "2026-11-20 18:00", "2026-11-23 09:00"},
		{"saturday: monday", p, "2026-11-21 11:00", "2026-11-23 09:00"},
		{"wednesday before thanksgiving evening: friday", p, "2026-11-25 20:00", "2026-11-27 09:00"},
		{"thanksgiving: friday", p, "2026-11-26 10:00", "2026-11-27 09:00"},
		{"friday before observed independence day: tuesday", p, "2027-07-02 17:30", "2027-07-06 09:00"},
		{"christmas eve evening over observed christmas 2022", p, "2022-12-23 23:00", "2022-12-27 09:00"},
		{"agency zone", mail.SendPolicy{Location: chi, StartHour: 8, EndHour: 16}, "2026-12-08 07:59", "2026-12-08 08:00"},
		{"invalid hours default to 9-17", mail.SendPolicy{Location: ny, StartHour: 18, EndHour: 8}, "2026-12-08 08:00", "2026-12-08 09:00"},
	}
	for _, c := range cases {
		now, _ := time.ParseInLocation("2006-01-02 15:04", c.now, c.p.Location)
		want, _ := time.ParseInLocation("2006-01-02 15:04", c.want, c.p.Location)
		got := mail.SendTime(now.UTC(), "any-key", c.p)
		if !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("%s: got %s, want %s", c.name, got.In(c.p.Location), want)
		}
	}
	// nil Location means America/New_York.
	now := time.Date(2026, 12, 8, 12, 0, 0, 0, time.UTC) // 07:00 ET
	if got := mail.SendTime(now, "k", mail.SendPolicy{}); !got.Equal(time.Date(2026, 12, 8, 14, 0, 0, 0, time.UTC)) {
		t.Errorf("default policy: %s", got)
	}
}

func TestJitterDeterministic(t *testing.T) {
	t.Parallel()
	const max = 2 * time.Hour
	seen := map[time.Duration]bool{}
	for _, key := range []string{"1:a:SEND_FOLLOWUP:1", "1:a:SEND_FOLLOWUP:2", "2:b:APPROVE_FEE:1", "3:c:SEND_REBUTTAL:1", "4:d:SEND_CLARIFICATION:1"} {
		j := mail.Jitter(key, max)
		if j != mail.Jitter(key, max) {
			t.Fatalf("%s: not deterministic", key)
		}
		if j < 0 || j >= max || j%time.Second != 0 {
			t.Fatalf("%s: jitter %s", key, j)
		}
		seen[j] = true
	}
	if len(seen) < 4 {
		t.Errorf("jitter barely varies across keys: %v", seen)
	}
	if mail.Jitter("k", 500*time.Millisecond) != 0 || mail.Jitter("k", 0) != 0 {
		t.Error("sub-second max must give 0")
	}
}

func TestSendTimeWithJitter(t *testing.T) {
	t.Parallel()
	ny, _ := time.LoadLocation("America/New_York")
	p := mail.SendPolicy{Location: ny, StartHour: 9, EndHour: 17, MaxJitter: 3 * time.Hour}
	key := "42:<m1@agency.gov>:SEND_FOLLOWUP:1"
	j := mail.Jitter(key, p.MaxJitter)

	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC) // Saturday
	got := mail.SendTime(now, key, p)
	if want := time.Date(2026, 11, 23, 9, 0, 0, 0, ny).Add(j); !got.Equal(want) {
		t.Errorf("saturday: got %s, want %s", got.In(ny), want)
	}
	if got != mail.SendTime(now, key, p) {
		t.Error("same key and now, different send time")
	}

	// Jitter that would cross closing continues the next business morning.
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		jk := mail.Jitter(k, p.MaxJitter)
		late := time.Date(2026, 11, 25, 16, 30, 0, 0, ny) // Wednesday before Thanksgiving
		got := mail.SendTime(late.UTC(), k, p).In(ny)
		var want time.Time
		if jk < 30*time.Minute {
			want = late.Add(jk)
		} else {
			want = time.Date(2026, 11, 27, 9, 0, 0, 0, ny).Add(jk - 30*time.Minute)
		}
		if !got.Equal(want) {
			t.Errorf("key %s jitter %s: got %s, want %s", k, jk, got, want)
		}
		if h := got.Hour(); h < 9 || h >= 17 {
			t.Errorf("key %s: outside business hours: %s", k, got)
		}
	}
}
