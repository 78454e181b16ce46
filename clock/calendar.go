package clock

import (
	"sync"
	"time"
	_ "time/tzdata" // agency time zones must resolve in minimal containers
)

// DefaultTimeZone is the agency time zone used when none is configured.
const DefaultTimeZone = "America/New_York"

var defaultLocation = sync.OnceValue(func() *time.Location {
	loc, err := time.LoadLocation(DefaultTimeZone)
	if err != nil { // unreachable: time/tzdata is embedded
		panic("clock: load " + DefaultTimeZone + ": " + err.Error())
	}
	return loc
})

// DefaultLocation returns America/New_York.
func DefaultLocation() *time.Location { return defaultLocation() }

// Calendar counts statutory days in an agency's time zone. The zero value
// uses DefaultTimeZone.
type Calendar struct {
	// Location is the agency's time zone; nil means America/New_York.
	Location *time.Location
}

// Loc returns the calendar's time zone.
func (c Calendar) Loc() *time.Location {
	if c.Location == nil {
		return DefaultLocation()
	}
	return c.Location
}

// Interval is a span during which the clock is tolled because the case waits
// on the requester (fee or clarification pending). Start and End are
// instants (UTC); End zero means the interval is still open.
type Interval struct {
	Start time.Time
	End   time.Time
}

// Open reports whether the interval has not ended yet.
func (iv Interval) Open() bool { return iv.End.IsZero() }

// DueDay returns the civil due date (in the calendar's zone) of a request
// sent at sentAt under rule, and false when no due date exists yet because
// an open tolling interval stops the clock before the deadline.
//
// Semantics (DESIGN.md "Clock"):
//   - The request is received on the civil date of sentAt in the agency's
//     zone; counting starts the day after receipt (day 1 = receipt + 1).
//   - Business-day rules count only rule.WorkingDay days (weekends and
//     observed federal holidays are skipped; UK bank holidays for the UK
//     rule); calendar-day rules count
//     every day. A calendar deadline landing on a weekend or holiday is not
//     moved.
//   - A day is tolled (not counted, whatever the rule) when it lies in
//     [date(Start), date(End)) of some interval, dates taken in the agency's
//     zone: the day the clock stops is tolled, the day it restarts counts.
//     So a fee quoted on the 1st and paid on the 8th tolls 7 days. An
//     interval ending on or before its start day tolls nothing; an open
//     interval tolls every day from its start.
//   - The due date is the day the rule's count is reached.
func (c Calendar) DueDay(sentAt time.Time, rule Rule, tolled []Interval) (Date, bool) {
	loc := c.Loc()
	d := DateOf(sentAt, loc)
	for counted := 0; counted < rule.Days; {
		d = d.AddDays(1)
		if t, open := tolledOn(d, tolled, loc); t {
			if open {
				return Date{}, false
			}
			continue
		}
		if rule.BusinessDays && !rule.WorkingDay(d) {
			continue
		}
		counted++
	}
	return d, true
}

// DueDate returns the deadline of a request sent at sentAt under rule as a
// UTC instant: 23:59:59 of the due day (see DueDay for the counting rules)
// in the agency's zone, so the agency has the whole due day and
// DateOf(due, c.Loc()) is the due day. It returns the zero time when an
// open tolling interval has stopped the clock before the deadline.
func (c Calendar) DueDate(sentAt time.Time, rule Rule, tolled []Interval) time.Time {
	day, ok := c.DueDay(sentAt, rule, tolled)
	if !ok {
		return time.Time{}
	}
	return day.End(c.Loc())
}

// tolledOn reports whether d is tolled, and whether by an open interval.
func tolledOn(d Date, tolled []Interval, loc *time.Location) (isTolled, open bool) {
	for _, iv := range tolled {
		start := DateOf(iv.Start, loc)
		if d.Before(start) {
			continue
		}
		if iv.Open() {
			return true, true
		}
		if d.Before(DateOf(iv.End, loc)) {
			isTolled = true
		}
	}
	return isTolled, false
}
