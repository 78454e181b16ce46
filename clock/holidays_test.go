package clock_test

import (
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/clock"
)

func mustDate(t *testing.T, s string) clock.Date {
	t.Helper()
	d, err := clock.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Observed dates checked against the OPM federal holiday calendars.
func TestFederalHolidayKnownDates(t *testing.T) {
	t.Parallel()
	holidays := []struct{ date, name string }{
		{"2026-01-01", "New Year's Day"},
		{"2026-01-19", "Birthday of Martin Luther King, Jr."},
		{"2026-02-16", "Washington's Birthday"},
		{"2026-05-25", "Memorial Day"},
		{"2026-06-19", "Juneteenth National Independence Day"},
		{"2026-07-03", "Independence Day"}, // July 4th is a Saturday
		{"2026-09-07", "Labor Day"},
		{"2026-10-12", "Columbus Day"},
		{"2026-11-11", "Veterans Day"},
		{"2026-11-26", "Thanksgiving Day"},
		{"2026-12-25", "Christmas Day"},
		{"2027-07-05", "Independence Day"}, // July 4th is a Sunday
		{"2022-12-26", "Christmas Day"},    // Sunday
		{"2023-01-02", "New Year's Day"},   // Sunday
		{"2021-12-31", "New Year's Day"},   // 2022-01-01 is a Saturday
		{"2021-06-18", "Juneteenth National Independence Day"},
		{"2022-06-20", "Juneteenth National Independence Day"},
		{"2023-11-10", "Veterans Day"}, // Saturday the 11th
		{"2024-11-28", "Thanksgiving Day"},
		{"2025-05-26", "Memorial Day"},
	}
	for _, h := range holidays {
		name, ok := clock.FederalHoliday(mustDate(t, h.date))
		if !ok || name != h.name {
			t.Errorf("FederalHoliday(%s) = %q, %v; want %q", h.date, name, ok, h.name)
		}
	}
	notHolidays := []string{
		"2026-07-04", // Saturday: offices closed Friday instead
		"2027-07-04",
		"2026-11-27", // day after Thanksgiving is not federal
		"2020-06-19", // Juneteenth starts in 2021
		"2022-01-01",
		"2026-12-24",
		"2026-12-31",
	}
	for _, s := range notHolidays {
		if name, ok := clock.FederalHoliday(mustDate(t, s)); ok {
			t.Errorf("FederalHoliday(%s) = %q, want none", s, name)
		}
	}
}

func TestFederalHolidaysShape(t *testing.T) {
	t.Parallel()
	for y := 1990; y <= 2100; y++ {
		hs := clock.FederalHolidays(y)
		want := 10
		if y >= 2021 {
			want = 11
		}
		if len(hs) != want {
			t.Fatalf("%d: %d holidays, want %d", y, len(hs), want)
		}
		for _, h := range hs {
			if wd := h.Observed.Weekday(); wd == time.Saturday || wd == time.Sunday {
				t.Errorf("%d %s observed on %s", y, h.Name, wd)
			}
			if d := h.Date.DaysUntil(h.Observed); d < -1 || d > 1 {
				t.Errorf("%d %s observed %s, date %s", y, h.Name, h.Observed, h.Date)
			}
		}
		tg := hs[len(hs)-2]
		if tg.Name != "Thanksgiving Day" || tg.Date.Weekday() != time.Thursday || tg.Date.Day < 22 || tg.Date.Day > 28 {
			t.Errorf("%d: bad Thanksgiving %+v", y, tg)
		}
	}
}

func TestIsBusinessDay(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{
		"2026-11-20": true,  // Friday
		"2026-11-21": false, // Saturday
		"2026-11-22": false, // Sunday
		"2026-11-26": false, // Thanksgiving
		"2026-11-27": true,
		"2022-12-26": false, // observed Christmas
	}
	for s, want := range cases {
		if got := clock.IsBusinessDay(mustDate(t, s)); got != want {
			t.Errorf("IsBusinessDay(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestDate(t *testing.T) {
	t.Parallel()
	d := clock.NewDate(2026, time.January, 32)
	if d.String() != "2026-02-01" {
		t.Fatalf("normalize: %s", d)
	}
	if d.AddDays(-1).String() != "2026-01-31" || !d.After(d.AddDays(-1)) || !d.Before(d.AddDays(1)) {
		t.Fatal("arith")
	}
	if n := mustDate(t, "2026-03-01").DaysUntil(mustDate(t, "2026-03-31")); n != 30 {
		t.Fatalf("DaysUntil across DST = %d", n)
	}
	if _, err := clock.ParseDate("2026-13-01"); err == nil {
		t.Fatal("want parse error")
	}
}
