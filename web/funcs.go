package web

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/foiaflow/foiaflow/workflow"
)

// funcs are the template helpers.
var funcs = template.FuncMap{
	"money":   func(c *int64, currency string) string { return workflow.Money(*c, currency) },
	"day":     func(t *time.Time) string { return t.UTC().Format("Mon 2 Jan 2006") },
	"join":    strings.Join,
	"age":     func(t time.Time) string { return ageOf(time.Since(t)) },
	"dollars": dollars,
}

// dollars formats a cost in millionths of a cent as US dollars to the
// hundredth of a cent: 1,036,000 µ¢ → "$0.0104".
func dollars(microCents int64) string {
	return fmt.Sprintf("$%.4f", float64(microCents)/1e8)
}

// ageOf says how long something has waited: "5 min", "3 h", "2 d".
func ageOf(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	default:
		return fmt.Sprintf("%d d", int(d.Hours()/24))
	}
}
