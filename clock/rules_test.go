package clock_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/clock"
	"github.com/foiaflow/foiaflow/dataset"
)

func loadRules(t *testing.T) *clock.Rules {
	t.Helper()
	r, err := clock.LoadRules(dataset.JurisdictionDeadlinesCSV, 30)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLoadRulesDataset(t *testing.T) {
	t.Parallel()
	r := loadRules(t)
	all := r.All()
	if len(all) != 45 { // federal, DC, 42 states, UK
		t.Fatalf("%d rules, want 45", len(all))
	}
	for _, rule := range all {
		if rule.Source == "" || rule.Days <= 0 || rule.ReasonableTime {
			t.Errorf("bad rule %+v", rule)
		}
	}
	cases := []struct {
		abbrev   string
		days     int
		business bool
	}{
		{"US", 20, true}, {"tx", 10, true}, {"Ca", 10, false}, {"DC", 15, true}, {"WY", 30, false},
	}
	for _, c := range cases {
		rule, found := r.Lookup(c.abbrev)
		if !found || rule.Days != c.days || rule.BusinessDays != c.business || rule.Abbrev != strings.ToUpper(c.abbrev) {
			t.Errorf("Lookup(%q) = %+v, %v", c.abbrev, rule, found)
		}
	}
	if us, _ := r.Lookup("us"); !us.Federal() || !strings.Contains(us.Source, "552(a)(6)(A)(i)") {
		t.Errorf("federal rule %+v", us)
	}
}

func TestLookupReasonableTime(t *testing.T) {
	t.Parallel()
	r := loadRules(t)
	for _, abbrev := range []string{"AZ", "fl", "MN", "NC", "ND", "OH", "OK", "WI", "ZZ"} {
		rule, found := r.Lookup(abbrev)
		if found || !rule.ReasonableTime || rule.Days != 30 || rule.BusinessDays || rule.Source != clock.ReasonableTimeSource {
			t.Errorf("Lookup(%q) = %+v, %v", abbrev, rule, found)
		}
	}
}

func TestLoadRulesErrors(t *testing.T) {
	t.Parallel()
	const header = "jurisdiction,abbrev,days,business_days,source\n"
	cases := map[string]struct {
		csv  string
		days int
	}{
		"default days":  {header, 0},
		"default huge":  {header, 400},
		"huge days":     {header + "Texas,TX,100000,true,x\n", 30},
		"empty":         {"", 30},
		"header":        {"name,abbrev,days,business_days,source\n", 30},
		"columns":       {header + "Texas,TX,10,true\n", 30},
		"days":          {header + "Texas,TX,ten,true,x\n", 30},
		"negative days": {header + "Texas,TX,-1,true,x\n", 30},
		"bool":          {header + "Texas,TX,10,maybe,x\n", 30},
		"abbrev":        {header + "Texas,,10,true,x\n", 30},
		"duplicate":     {header + "Texas,TX,10,true,x\nTexas,tx,10,true,x\n", 30},
	}
	for name, c := range cases {
		if _, err := clock.LoadRules([]byte(c.csv), c.days); !errors.Is(err, clock.ErrBadRules) {
			t.Errorf("%s: err = %v, want ErrBadRules", name, err)
		}
	}
}
