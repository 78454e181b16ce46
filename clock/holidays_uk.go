package clock

import (
	"sort"
	"time"
)

// UKAbbrev is the jurisdiction abbreviation of the UK Freedom of Information
// Act 2000, whose working days follow the UK calendar instead of US federal
// holidays.
const UKAbbrev = "UK"

// UKNonWorkingDays returns the weekdays of year that are not working days
// under the Freedom of Information Act 2000 s.10(6), in calendar order:
// Christmas Day, Good Friday and every bank holiday of any part of the
// United Kingdom under the Banking and Financial Dealings Act 1971 —
// England and Wales, Scotland (2 January, first Monday of August, St
// Andrew's Day) and Northern Ireland (St Patrick's Day, Battle of the Boyne)
// — with the substitute weekday when a fixed-date holiday falls at a
// weekend, and the one-off changes proclaimed since 2011 (royal wedding
// 2011, jubilees 2012 and 2022, VE Day 2020, state funeral 2022,
// coronation 2023). Name holds the holiday; Date the statutory date;
// Observed the weekday that is not a working day.
func UKNonWorkingDays(year int) []Holiday {
	easter := easterSunday(year)
	var hs []Holiday
	taken := map[Date]bool{}
	add := func(name string, d, observed Date) {
		hs = append(hs, Holiday{Name: name, Date: d, Observed: observed})
		taken[observed] = true
	}
	add("Good Friday", easter.AddDays(-2), easter.AddDays(-2))
	add("Easter Monday", easter.AddDays(1), easter.AddDays(1))
	earlyMay := nthWeekday(year, time.May, time.Monday, 1)
	spring := lastWeekday(year, time.May, time.Monday)
	if c, ok := ukChanges[year]; ok {
		if !c.earlyMay.IsZero() {
			earlyMay = c.earlyMay
		}
		if !c.spring.IsZero() {
			spring = c.spring
		}
		for _, e := range c.extra {
			add(e.name, e.date, e.date)
		}
	}
	add("Early May bank holiday", earlyMay, earlyMay)
	add("Spring bank holiday", spring, spring)
	add("Summer bank holiday (Scotland)", nthWeekday(year, time.August, time.Monday, 1), nthWeekday(year, time.August, time.Monday, 1))
	add("Summer bank holiday", lastWeekday(year, time.August, time.Monday), lastWeekday(year, time.August, time.Monday))
	// Fixed dates in calendar order: a weekend date moves to the next
	// weekday that is not already a holiday (so Christmas on a Saturday is
	// observed on Monday 27 and Boxing Day on Tuesday 28).
	fixed := []struct {
		name string
		d    Date
	}{
		{"New Year's Day", NewDate(year, time.January, 1)},
		{"2nd January (Scotland)", NewDate(year, time.January, 2)},
		{"St Patrick's Day (Northern Ireland)", NewDate(year, time.March, 17)},
		{"Battle of the Boyne (Northern Ireland)", NewDate(year, time.July, 12)},
		{"St Andrew's Day (Scotland)", NewDate(year, time.November, 30)},
		{"Christmas Day", NewDate(year, time.December, 25)},
		{"Boxing Day", NewDate(year, time.December, 26)},
	}
	for _, f := range fixed {
		if !weekend(f.d) {
			add(f.name, f.d, f.d)
		}
	}
	for _, f := range fixed {
		if weekend(f.d) {
			o := f.d
			for weekend(o) || taken[o] {
				o = o.AddDays(1)
			}
			add(f.name, f.d, o)
		}
	}
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].Observed.Before(hs[j].Observed) })
	return hs
}

// IsUKWorkingDay reports whether d is a working day under the Freedom of
// Information Act 2000 s.10(6): a weekday that is none of UKNonWorkingDays.
func IsUKWorkingDay(d Date) bool {
	if weekend(d) {
		return false
	}
	for _, h := range UKNonWorkingDays(d.Year) {
		if h.Observed == d {
			return false
		}
	}
	return true
}

func weekend(d Date) bool {
	wd := d.Weekday()
	return wd == time.Saturday || wd == time.Sunday
}

type ukOneOff struct {
	name string
	date Date
}

// ukChanges are the bank holidays moved or added by proclamation.
var ukChanges = map[int]struct {
	earlyMay, spring Date
	extra            []ukOneOff
}{
	2011: {extra: []ukOneOff{{"Royal wedding", NewDate(2011, time.April, 29)}}},
	2012: {spring: NewDate(2012, time.June, 4), extra: []ukOneOff{{"Diamond Jubilee", NewDate(2012, time.June, 5)}}},
	2020: {earlyMay: NewDate(2020, time.May, 8)},
	2022: {spring: NewDate(2022, time.June, 2), extra: []ukOneOff{
		{"Platinum Jubilee", NewDate(2022, time.June, 3)},
		{"State funeral of Queen Elizabeth II", NewDate(2022, time.September, 19)}}},
	2023: {extra: []ukOneOff{{"Coronation of King Charles III", NewDate(2023, time.May, 8)}}},
}

// easterSunday returns Easter Sunday of year in the Gregorian calendar
// (anonymous Gregorian algorithm, Meeus/Jones/Butcher).
func easterSunday(year int) Date {
	a := year % 19
	b, c := year/100, year%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return NewDate(year, time.Month(month), day)
}
