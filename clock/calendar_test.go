package clock_test

import (
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/clock"
)

func loc(t *testing.T, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// at returns the UTC instant of a wall time in l.
func at(t *testing.T, l *time.Location, s string) time.Time {
	t.Helper()
	v, err := time.ParseInLocation("2006-01-02 15:04", s, l)
	if err != nil {
		t.Fatal(err)
	}
	return v.UTC()
}

func TestDueDate(t *testing.T) {
	t.Parallel()
	rules := loadRules(t)
	ny, chi, la := loc(t, "America/New_York"), loc(t, "America/Chicago"), loc(t, "America/Los_Angeles")
	rule := func(a string) clock.Rule { r, _ := rules.Lookup(a); return r }
	cases := []struct {
		name   string
		loc    *time.Location
		rule   clock.Rule
		sent   time.Time
		tolled []clock.Interval
		want   string // due day in the agency zone, "" = no due date
	}{
		{
			name: "texas friday before thanksgiving",
			loc:  chi, rule: rule("TX"), sent: at(t, chi, "2026-11-20 14:00"),
			want: "2026-12-07", // skips the weekend and Thu 11-26; Fri 11-27 counts
		},
		{
			name: "receipt date taken in the agency zone",
			loc:  chi, rule: rule("TX"), sent: at(t, chi, "2026-11-19 21:00"), // 03:00 UTC Friday
			want: "2026-12-04",
		},
		{
			name: "same instant in UTC is a Friday receipt",
			loc:  time.UTC, rule: rule("TX"), sent: at(t, chi, "2026-11-19 21:00"),
			want: "2026-12-07",
		},
		{
			name: "federal across christmas and new year",
			loc:  ny, rule: rule("US"), sent: at(t, ny, "2026-12-15 10:00"),
			want: "2027-01-14", // skips Fri 12-25 and Fri 01-01
		},
		{
			name: "sunday-observed christmas and new year (DC)",
			loc:  ny, rule: rule("DC"), sent: at(t, ny, "2022-12-20 10:00"),
			want: "2023-01-12", // skips Mon 12-26 and Mon 01-02
		},
		{
			name: "kansas 3 business days over observed christmas",
			loc:  chi, rule: rule("KS"), sent: at(t, chi, "2022-12-23 09:00"),
			want: "2022-12-29",
		},
		{
			name: "observed independence day 2027",
			loc:  ny, rule: rule("KS"), sent: at(t, ny, "2027-07-01 09:00"),
			want: "2027-07-07", // Fri 07-02 (1), Mon 07-05 observed holiday, Tue (2), Wed (3)
		},
		{
			name: "california calendar days",
			loc:  la, rule: rule("CA"), sent: at(t, la, "2026-03-02 10:00"),
			want: "2026-03-12",
		},
		{
			name: "calendar deadline on a weekend is not moved",
			loc:  la, rule: rule("CA"), sent: at(t, la, "2026-03-04 10:00"),
			want: "2026-03-14", // Saturday
		},
		{
			name: "california tolled 7 days while a fee was pending",
			loc:  la, rule: rule("CA"), sent: at(t, la, "2026-03-02 10:00"),
			tolled: []clock.Interval{{Start: at(t, la, "2026-03-04 16:00"), End: at(t, la, "2026-03-11 09:30")}},
			want:   "2026-03-19",
		},
		{
			name: "texas tolled 7 days loses 5 business days",
			loc:  chi, rule: rule("TX"), sent: at(t, chi, "2026-03-02 10:00"),
			tolled: []clock.Interval{{Start: at(t, chi, "2026-03-04 16:00"), End: at(t, chi, "2026-03-11 09:30")}},
			want:   "2026-03-23", // 2026-03-16 untolled
		},
		{
			name: "interval ending on its start day tolls nothing",
			loc:  chi, rule: rule("TX"), sent: at(t, chi, "2026-03-02 10:00"),
			tolled: []clock.Interval{{Start: at(t, chi, "2026-03-04 09:00"), End: at(t, chi, "2026-03-04 17:00")}},
			want:   "2026-03-16",
		},
		{
			name: "open tolling interval stops the clock",
			loc:  chi, rule: rule("TX"), sent: at(t, chi, "2026-03-02 10:00"),
			tolled: []clock.Interval{{Start: at(t, chi, "2026-03-04 16:00")}},
			want:   "",
		},
		{
			name: "open tolling after the deadline changes nothing",
			loc:  chi, rule: rule("TX"), sent: at(t, chi, "2026-03-02 10:00"),
			tolled: []clock.Interval{{Start: at(t, chi, "2026-03-20 16:00")}},
			want:   "2026-03-16",
		},
		{
			name: "reasonable-time state uses the default in calendar days",
			loc:  ny, rule: rule("FL"), sent: at(t, ny, "2026-01-05 10:00"),
			want: "2026-02-04",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cal := clock.Calendar{Location: c.loc}
			due := cal.DueDate(c.sent, c.rule, c.tolled)
			if c.want == "" {
				if !due.IsZero() {
					t.Fatalf("due = %s, want none", due)
				}
				return
			}
			if due.Location() != time.UTC {
				t.Errorf("due not UTC: %s", due.Location())
			}
			local := due.In(c.loc)
			if got := local.Format("2006-01-02 15:04:05"); got != c.want+" 23:59:59" {
				t.Errorf("due = %s (%s), want %s 23:59:59", got, local.Weekday(), c.want)
			}
		})
	}
}

func TestCalendarDefaultLocation(t *testing.T) {
	t.Parallel()
	if got := (clock.Calendar{}).Loc().String(); got != "America/New_York" {
		t.Fatalf("default location %s", got)
	}
	rules := loadRules(t)
	tx, _ := rules.Lookup("TX")
	sent := time.Date(2026, 11, 20, 19, 0, 0, 0, time.UTC) // 14:00 ET Friday
	due := clock.Calendar{}.DueDate(sent, tx, nil)
	if want := time.Date(2026, 12, 8, 4, 59, 59, 0, time.UTC); !due.Equal(want) {
		t.Fatalf("due %s, want %s", due, want)
	}
}
