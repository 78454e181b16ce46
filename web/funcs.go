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
	"cents": func(c *int64) string { return workflow.Cents(*c) },
	"day":   func(t *time.Time) string { return t.UTC().Format("Mon 2 Jan 2006") },
	"join":  strings.Join,
	"age":   func(t time.Time) string { return ageOf(time.Since(t)) },
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
