package clock_test

import (
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/clock"
)

// Non-working weekdays of 2022 and 2023 checked against the published bank
// holidays of England and Wales, Scotland and Northern Ireland (gov.uk).
func TestUKNonWorkingDaysKnownYears(t *testing.T) {
	t.Parallel()
	want := map[int][]string{
		2022: {"2022-01-03", "2022-01-04", "2022-03-17", "2022-04-15", "2022-04-18", "2022-05-02", "2022-06-02",
			"2022-06-03", "2022-07-12", "2022-08-01", "2022-08-29", "2022-09-19", "2022-11-30", "2022-12-26", "2022-12-27"},
		2023: {"2023-01-02", "2023-01-03", "2023-03-17", "2023-04-07", "2023-04-10", "2023-05-01", "2023-05-08",
			"2023-05-29", "2023-07-12", "2023-08-07", "2023-08-28", "2023-11-30", "2023-12-25", "2023-12-26"},
		2021: {"2021-01-01", "2021-01-04", "2021-03-17", "2021-04-02", "2021-04-05", "2021-05-03", "2021-05-31",
			"2021-07-12", "2021-08-02", "2021-08-30", "2021-11-30", "2021-12-27", "2021-12-28"},
	}
	for year, days := range want {
		got := clock.UKNonWorkingDays(year)
		if len(got) != len(days) {
			t.Errorf("%d: %d days, want %d: %v", year, len(got), len(days), got)
			continue
		}
		for i, d := range days {
			if got[i].Observed.String() != d {
				t.Errorf("%d: day %d is %s (%s), want %s", year, i, got[i].Observed, got[i].Name, d)
			}
			if clock.IsUKWorkingDay(got[i].Observed) {
				t.Errorf("%s counted as a working day", d)
			}
		}
	}
}

func TestUKGoodFridayFollowsEaster(t *testing.T) {
	t.Parallel()
	for year, gf := range map[int]string{2000: "2000-04-21", 2019: "2019-04-19", 2024: "2024-03-29", 2025: "2025-04-18", 2038: "2038-04-23"} {
		if clock.IsUKWorkingDay(mustDate(t, gf)) {
			t.Errorf("Good Friday %d (%s) is a working day", year, gf)
		}
		if !clock.IsUKWorkingDay(mustDate(t, gf).AddDays(-1)) {
			t.Errorf("Maundy Thursday %d is not a working day", year)
		}
	}
}

// A request received on Monday 19 December 2022 is due on the twentieth UK
// working day (s.10(1)): 20 January 2023. The same count under US federal
// holidays ends a day earlier, so the UK rule must not use them.
func TestUKRuleCountsUKWorkingDays(t *testing.T) {
	t.Parallel()
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	cal := clock.Calendar{Location: london}
	sent := time.Date(2022, 12, 19, 10, 0, 0, 0, london)
	uk, _ := loadRules(t).Lookup("uk")
	if got, _ := cal.DueDay(sent, uk, nil); got.String() != "2023-01-20" {
		t.Errorf("UK due day %s, want 2023-01-20", got)
	}
	us := uk
	us.Abbrev = "XX"
	if got, _ := cal.DueDay(sent, us, nil); got.String() != "2023-01-19" {
		t.Errorf("same count on the US calendar %s, want 2023-01-19", got)
	}
}
