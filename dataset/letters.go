package dataset

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// JurisdictionStatutesCSV holds, per jurisdiction, the statute citation
// that goes in letters (columns abbrev,citation,source). The source column
// cites the statute the citation comes from; it never goes in a letter.
//
//go:embed jurisdiction-statutes.csv
var JurisdictionStatutesCSV []byte

// JurisdictionAppealsCSV holds, per jurisdiction, the administrative appeal
// the statute provides after a denial (columns abbrev,appeal,body,citation,
// file_days,file_business_days,decide_days,decide_business_days,source).
// Empty day columns mean the statute sets no period; appeal "none" means
// the statute provides no administrative appeal (the source says what it
// provides instead).
//
//go:embed jurisdiction-appeals.csv
var JurisdictionAppealsCSV []byte

// Statute is the citation of a jurisdiction's public records law as it is
// written in letters, e.g. "the Illinois Freedom of Information Act,
// 5 ILCS 140". Source cites where the citation comes from (research text:
// never in a letter).
type Statute struct {
	Abbrev   string
	Citation string
	Source   string
}

// Appeal kinds of JurisdictionAppealsCSV.
const (
	// AppealAgency: the appeal is filed with the agency (its head or
	// appeals officer), by email to the agency.
	AppealAgency = "agency"
	// AppealExternal: the appeal (or request for review) is filed with an
	// outside body such as an attorney general, a public access counselor
	// or a commission.
	AppealExternal = "external"
	// AppealNone: the statute provides no administrative appeal.
	AppealNone = "none"
)

// Appeal is the administrative appeal of one jurisdiction. FileDays is the
// period to file after the denial (0: the statute sets none), DecideDays the
// period the body has to decide (0: none); the *BusinessDays flags say
// whether each counts business (working) days or calendar days. Citation is
// the section granting the appeal, as written in letters; Source is
// research text that stays out of letters.
type Appeal struct {
	Abbrev             string
	Kind               string
	Body               string
	Citation           string
	FileDays           int
	FileBusinessDays   bool
	DecideDays         int
	DecideBusinessDays bool
	Source             string
}

// ErrBadLetterData wraps every error of Statutes and Appeals.
var ErrBadLetterData = errors.New("dataset: bad letter data")

// maxPeriodDays bounds a filing or decision period.
const maxPeriodDays = 366

// Statutes parses JurisdictionStatutesCSV (see ParseStatutes).
func Statutes() ([]Statute, error) { return ParseStatutes(JurisdictionStatutesCSV) }

// Appeals parses JurisdictionAppealsCSV (see ParseAppeals).
func Appeals() ([]Appeal, error) { return ParseAppeals(JurisdictionAppealsCSV) }

// ParseStatutes parses a CSV in the format of JurisdictionStatutesCSV. Every row needs an abbrev, a
// citation without a URL or quotation marks, and a source; abbrevs are
// unique. Errors wrap ErrBadLetterData and name the line.
func ParseStatutes(b []byte) ([]Statute, error) {
	var out []Statute
	seen := map[string]bool{}
	err := readCSV(b, []string{"abbrev", "citation", "source"}, func(line int, r []string) error {
		s := Statute{Abbrev: strings.ToUpper(r[0]), Citation: r[1], Source: r[2]}
		if s.Abbrev == "" || seen[s.Abbrev] {
			return fmt.Errorf("empty or duplicate abbrev %q", s.Abbrev)
		}
		if err := letterText(s.Citation); err != nil {
			return fmt.Errorf("citation: %w", err)
		}
		if s.Source == "" {
			return errors.New("empty source")
		}
		seen[s.Abbrev] = true
		out = append(out, s)
		return nil
	})
	return out, err
}

// ParseAppeals parses a CSV in the format of JurisdictionAppealsCSV. A row of kind "none" has no body,
// citation or periods; the other kinds need a body and a citation without a
// URL or quotation marks. Periods are empty or 1..366 days, a business-day
// flag only with its period. Abbrevs are unique and every row has a source.
// Errors wrap ErrBadLetterData and name the line.
func ParseAppeals(b []byte) ([]Appeal, error) {
	var out []Appeal
	seen := map[string]bool{}
	header := []string{"abbrev", "appeal", "body", "citation", "file_days", "file_business_days", "decide_days", "decide_business_days", "source"}
	err := readCSV(b, header, func(line int, r []string) error {
		a := Appeal{Abbrev: strings.ToUpper(r[0]), Kind: r[1], Body: r[2], Citation: r[3], Source: r[8]}
		if a.Abbrev == "" || seen[a.Abbrev] {
			return fmt.Errorf("empty or duplicate abbrev %q", a.Abbrev)
		}
		var err error
		if a.FileDays, a.FileBusinessDays, err = period(r[4], r[5]); err != nil {
			return fmt.Errorf("file period: %w", err)
		}
		if a.DecideDays, a.DecideBusinessDays, err = period(r[6], r[7]); err != nil {
			return fmt.Errorf("decision period: %w", err)
		}
		switch a.Kind {
		case AppealNone:
			if a.Body != "" || a.Citation != "" || a.FileDays != 0 || a.DecideDays != 0 {
				return errors.New(`appeal "none" with a body, citation or period`)
			}
		case AppealAgency, AppealExternal:
			if a.Body == "" {
				return errors.New("empty body")
			}
			if err := letterText(a.Citation); err != nil {
				return fmt.Errorf("citation: %w", err)
			}
			if err := letterText(a.Body); err != nil {
				return fmt.Errorf("body: %w", err)
			}
		default:
			return fmt.Errorf("appeal %q is not agency, external or none", a.Kind)
		}
		if a.Source == "" {
			return errors.New("empty source")
		}
		seen[a.Abbrev] = true
		out = append(out, a)
		return nil
	})
	return out, err
}

func period(days, business string) (int, bool, error) {
	if days == "" {
		if business != "" {
			return 0, false, errors.New("business-day flag without days")
		}
		return 0, false, nil
	}
	n, err := strconv.Atoi(days)
	if err != nil || n <= 0 || n > maxPeriodDays {
		return 0, false, fmt.Errorf("days %q is not an integer in 1..%d", days, maxPeriodDays)
	}
	b, err := strconv.ParseBool(business)
	if err != nil {
		return 0, false, fmt.Errorf("business-day flag %q is not a boolean", business)
	}
	return n, b, nil
}

// letterText rejects text that must not reach a letter: empty, a URL or a
// quotation (our research notes quote statutes; letters cite them).
func letterText(s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return errors.New("empty")
	case strings.Contains(s, "://") || strings.Contains(strings.ToLower(s), "www."):
		return fmt.Errorf("%q contains a URL", s)
	case strings.ContainsAny(s, "\"“”"):
		return fmt.Errorf("%q contains a quotation", s)
	}
	return nil
}

// readCSV reads a CSV with the given header, trimming every field, and calls
// row for each record with its line number.
func readCSV(b []byte, header []string, row func(line int, r []string) error) error {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = len(header)
	h, err := r.Read()
	if err != nil {
		return fmt.Errorf("%w: header: %w", ErrBadLetterData, err)
	}
	for i, want := range header {
		if strings.TrimSpace(strings.TrimPrefix(h[i], "\ufeff")) != want {
			return fmt.Errorf("%w: header column %d is %q, want %q", ErrBadLetterData, i+1, h[i], want)
		}
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrBadLetterData, err)
		}
		line, _ := r.FieldPos(0)
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		if err := row(line, rec); err != nil {
			return fmt.Errorf("%w: line %d: %w", ErrBadLetterData, line, err)
		}
	}
}
