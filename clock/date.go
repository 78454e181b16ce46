package clock

import (
	"fmt"
	"time"
)

// Date is a civil (wall-calendar) date with no time of day and no zone. The
// statutory clock counts Dates in the agency's time zone (DESIGN.md "Clock").
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the civil date of instant t in loc (UTC when loc is nil).
func DateOf(t time.Time, loc *time.Location) Date {
	if loc == nil {
		loc = time.UTC
	}
	y, m, d := t.In(loc).Date()
	return Date{Year: y, Month: m, Day: d}
}

// NewDate returns the normalized date for y-m-d (so day 32 of January is
// February 1st).
func NewDate(y int, m time.Month, d int) Date {
	return DateOf(time.Date(y, m, d, 0, 0, 0, 0, time.UTC), time.UTC)
}

// ParseDate parses "2006-01-02".
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("parse date %q: %w", s, err)
	}
	return DateOf(t, time.UTC), nil
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// AddDays returns d plus n calendar days (n may be negative).
func (d Date) AddDays(n int) Date { return NewDate(d.Year, d.Month, d.Day+n) }

// Weekday returns the day of the week of d.
func (d Date) Weekday() time.Weekday { return d.utc().Weekday() }

// Compare returns -1, 0 or +1 as d is before, equal to or after o.
func (d Date) Compare(o Date) int { return d.utc().Compare(o.utc()) }

// Before reports whether d is strictly before o.
func (d Date) Before(o Date) bool { return d.Compare(o) < 0 }

// After reports whether d is strictly after o.
func (d Date) After(o Date) bool { return d.Compare(o) > 0 }

// DaysUntil returns the number of calendar days from d to o (negative when o
// is before d).
func (d Date) DaysUntil(o Date) int {
	return int(o.utc().Sub(d.utc()).Hours() / 24)
}

// Start returns 00:00:00 of d in loc, as a UTC instant.
func (d Date) Start(loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc).UTC()
}

// End returns 23:59:59 of d in loc, as a UTC instant: the last whole second
// of the day. Second precision survives a round trip through Postgres
// timestamptz (microseconds) without rounding into the next day.
func (d Date) End(loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	return time.Date(d.Year, d.Month, d.Day, 23, 59, 59, 0, loc).UTC()
}

// String formats d as "2006-01-02".
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

func (d Date) utc() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }
