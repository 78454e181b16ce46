package clock

import "time"

// Holiday is one US federal legal public holiday (5 U.S.C. 6103) of a year:
// Date is the statutory date, Observed the day federal offices close for it
// (a Saturday holiday is observed the Friday before, a Sunday holiday the
// Monday after). Observed may fall in the previous year: New Year's Day
// 2022 (a Saturday) was observed on Friday 2021-12-31.
type Holiday struct {
	Name     string
	Date     Date
	Observed Date
}

// FederalHolidays returns the federal holidays of year in calendar order,
// using today's rules for every year, except that Martin Luther King Jr. Day
// starts in 1986 and Juneteenth in 2021 (DESIGN.md "Clock": business days
// skip weekends and US federal holidays). Inauguration Day, a holiday only
// in the Washington DC area, is not included.
func FederalHolidays(year int) []Holiday {
	hs := make([]Holiday, 0, 11)
	add := func(name string, d Date) {
		hs = append(hs, Holiday{Name: name, Date: d, Observed: observed(d)})
	}
	add("New Year's Day", NewDate(year, time.January, 1))
	if year >= 1986 {
		add("Birthday of Martin Luther King, Jr.", nthWeekday(year, time.January, time.Monday, 3))
	}
	add("Washington's Birthday", nthWeekday(year, time.February, time.Monday, 3))
	add("Memorial Day", lastWeekday(year, time.May, time.Monday))
	if year >= 2021 {
		add("Juneteenth National Independence Day", NewDate(year, time.June, 19))
	}
	add("Independence Day", NewDate(year, time.July, 4))
	add("Labor Day", nthWeekday(year, time.September, time.Monday, 1))
	add("Columbus Day", nthWeekday(year, time.October, time.Monday, 2))
	add("Veterans Day", NewDate(year, time.November, 11))
	add("Thanksgiving Day", nthWeekday(year, time.November, time.Thursday, 4))
	add("Christmas Day", NewDate(year, time.December, 25))
	return hs
}

// FederalHoliday reports whether federal offices are closed on d for a
// holiday (d is the observed date of a holiday) and the holiday's name.
func FederalHoliday(d Date) (string, bool) {
	// The observed date of next year's New Year's Day can be December 31.
	for _, y := range []int{d.Year, d.Year + 1} {
		for _, h := range FederalHolidays(y) {
			if h.Observed == d {
				return h.Name, true
			}
		}
	}
	return "", false
}

// IsBusinessDay reports whether d is a weekday that is not an observed
// federal holiday.
func IsBusinessDay(d Date) bool {
	switch d.Weekday() {
	case time.Saturday, time.Sunday:
		return false
	}
	_, holiday := FederalHoliday(d)
	return !holiday
}

func observed(d Date) Date {
	switch d.Weekday() {
	case time.Saturday:
		return d.AddDays(-1)
	case time.Sunday:
		return d.AddDays(1)
	}
	return d
}

// nthWeekday returns the n-th (1-based) wd of month m in year y.
func nthWeekday(y int, m time.Month, wd time.Weekday, n int) Date {
	first := NewDate(y, m, 1)
	offset := (int(wd) - int(first.Weekday()) + 7) % 7
	return first.AddDays(offset + 7*(n-1))
}

// lastWeekday returns the last wd of month m in year y.
func lastWeekday(y int, m time.Month, wd time.Weekday) Date {
	last := NewDate(y, m+1, 0)
	offset := (int(last.Weekday()) - int(wd) + 7) % 7
	return last.AddDays(-offset)
}
