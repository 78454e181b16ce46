// Package clock owns the statutory clock of a public-records case
// (DESIGN.md "Clock", MuckRock's model): per-jurisdiction response deadlines
// loaded from dataset.JurisdictionDeadlinesCSV, US federal holidays and
// business days, the due date of a request (with tolling while the case
// waits on the requester) and the follow-up schedule that leads to
// escalation. Everything here is a pure function of its inputs: callers
// pass instants (UTC in, UTC out) and the agency's time zone; nothing reads
// the wall clock.
package clock

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// FederalAbbrev is the jurisdiction abbreviation of federal FOIA.
const FederalAbbrev = "US"

// ReasonableTimeSource is the Source of a rule synthesized for a
// jurisdiction with no statutory deadline.
const ReasonableTimeSource = `no statutory deadline ("reasonable time"); configured default`

// Rule is the response deadline of one jurisdiction: Days business days
// (weekends and federal holidays skipped) when BusinessDays is true, else
// calendar days. Source cites the statute or page the row came from.
// ReasonableTime marks a synthesized rule for a jurisdiction the statute
// gives no fixed deadline (AZ, FL, MN, NC, ND, OH, OK, WI, or any unknown
// abbreviation): Days is then the configured default, in calendar days.
type Rule struct {
	Jurisdiction   string
	Abbrev         string // upper case, e.g. "TX", "US"
	Days           int
	BusinessDays   bool
	Source         string
	ReasonableTime bool
}

// Federal reports whether r is the federal FOIA rule (abbrev US).
func (r Rule) Federal() bool { return r.Abbrev == FederalAbbrev }

// WorkingDay reports whether d counts as a business day under r: for the UK
// rule a working day of the Freedom of Information Act 2000 s.10(6)
// (IsUKWorkingDay), for every US jurisdiction a weekday that is not an
// observed federal holiday (IsBusinessDay).
func (r Rule) WorkingDay(d Date) bool {
	if r.Abbrev == UKAbbrev {
		return IsUKWorkingDay(d)
	}
	return IsBusinessDay(d)
}

// Rules is the table of jurisdiction deadlines. It is read-only after
// LoadRules and safe for concurrent use.
type Rules struct {
	byAbbrev              map[string]Rule
	defaultReasonableDays int
}

// MaxRuleDays bounds a rule's days (and the reasonable-time default).
const MaxRuleDays = 366

// Errors of LoadRules.
var (
	ErrBadRules = errors.New("clock: bad jurisdiction rules")
)

var wantHeader = []string{"jurisdiction", "abbrev", "days", "business_days", "source"}

// LoadRules parses a CSV with the header jurisdiction,abbrev,days,
// business_days,source (the format of dataset.JurisdictionDeadlinesCSV).
// defaultReasonableDays (calendar days, 1..MaxRuleDays) is used for
// jurisdictions that are absent. Errors wrap ErrBadRules and name the
// offending line: wrong header, wrong column count, days outside
// 1..MaxRuleDays, bad boolean, empty or duplicate abbrev.
func LoadRules(csvData []byte, defaultReasonableDays int) (*Rules, error) {
	if defaultReasonableDays <= 0 || defaultReasonableDays > MaxRuleDays {
		return nil, fmt.Errorf("%w: default reasonable days %d must be in 1..%d", ErrBadRules, defaultReasonableDays, MaxRuleDays)
	}
	r := csv.NewReader(bytes.NewReader(csvData))
	r.FieldsPerRecord = len(wantHeader)
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrBadRules, err)
	}
	for i, h := range wantHeader {
		if strings.TrimSpace(strings.TrimPrefix(header[i], "\ufeff")) != h {
			return nil, fmt.Errorf("%w: header column %d is %q, want %q", ErrBadRules, i+1, header[i], h)
		}
	}
	rules := &Rules{byAbbrev: map[string]Rule{}, defaultReasonableDays: defaultReasonableDays}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadRules, err)
		}
		line, _ := r.FieldPos(0)
		rule, err := parseRule(rec)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrBadRules, line, err)
		}
		if _, dup := rules.byAbbrev[rule.Abbrev]; dup {
			return nil, fmt.Errorf("%w: line %d: duplicate abbrev %q", ErrBadRules, line, rule.Abbrev)
		}
		rules.byAbbrev[rule.Abbrev] = rule
	}
	return rules, nil
}

func parseRule(rec []string) (Rule, error) {
	abbrev := strings.ToUpper(strings.TrimSpace(rec[1]))
	if abbrev == "" {
		return Rule{}, errors.New("empty abbrev")
	}
	days, err := strconv.Atoi(strings.TrimSpace(rec[2]))
	if err != nil || days <= 0 || days > MaxRuleDays {
		return Rule{}, fmt.Errorf("days %q is not an integer in 1..%d", rec[2], MaxRuleDays)
	}
	business, err := strconv.ParseBool(strings.TrimSpace(rec[3]))
	if err != nil {
		return Rule{}, fmt.Errorf("business_days %q is not a boolean", rec[3])
	}
	return Rule{
		Jurisdiction: strings.TrimSpace(rec[0]),
		Abbrev:       abbrev,
		Days:         days,
		BusinessDays: business,
		Source:       strings.TrimSpace(rec[4]),
	}, nil
}

// Lookup returns the rule of the jurisdiction abbrev (case-insensitive,
// e.g. "tx", "US"). An absent or unknown abbrev yields a "reasonable time"
// rule (ReasonableTime true, Days = the configured default in calendar
// days, Source = ReasonableTimeSource) and found false.
func (r *Rules) Lookup(abbrev string) (rule Rule, found bool) {
	key := strings.ToUpper(strings.TrimSpace(abbrev))
	if rule, ok := r.byAbbrev[key]; ok {
		return rule, true
	}
	return Rule{
		Jurisdiction:   key,
		Abbrev:         key,
		Days:           r.defaultReasonableDays,
		BusinessDays:   false,
		Source:         ReasonableTimeSource,
		ReasonableTime: true,
	}, false
}

// All returns every loaded rule sorted by abbrev.
func (r *Rules) All() []Rule {
	out := make([]Rule, 0, len(r.byAbbrev))
	for _, rule := range r.byAbbrev {
		out = append(out, rule)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Abbrev < out[j].Abbrev })
	return out
}
