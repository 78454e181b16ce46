package workflow

import (
	"regexp"
	"strings"
)

// Risk flags raised by safety_check (seed 000 §3.6).
const (
	RiskRequestsExemptItem = "REQUESTS_EXEMPT_ITEM"
	RiskFeeMismatch        = "FEE_MISMATCH"
	RiskPII                = "CONTAINS_PII"
	RiskAggressiveTone     = "AGGRESSIVE_TONE"
	RiskInjection          = "PROMPT_INJECTION"
	RiskEmptyDraft         = "EMPTY_DRAFT"
	RiskPortalEmail        = "PORTAL_CASE_EMAIL"
	RiskNeedsEdit          = "NEEDS_HUMAN_EDIT"
)

// SafetyResult is what safety_check found. Any flag forces a human gate.
type SafetyResult struct {
	RiskFlags []string `json:"risk_flags,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
}

// Blocking reports whether the draft must not execute without a human.
func (r SafetyResult) Blocking() bool { return len(r.RiskFlags) > 0 }

var (
	ssnRe        = regexp.MustCompile(`\b\d{3}-\d{2}-\d{4}\b`)
	dollarRe     = regexp.MustCompile(`\$\s?\d[\d,]*(?:\.\d{2})?`)
	aggressiveRe = regexp.MustCompile(`(?i)\b(lawsuit|sue you|we will sue|litigation|incompeten\w*|unacceptable|disgrace\w*|ridiculous|outrageous|illegal(ly)?)\b`)
	injectionRe  = regexp.MustCompile(`(?i)(ignore (all |any )?(previous|prior|above) instructions|disregard (the|your) (instructions|rules)|you are now|system prompt)`)
)

// SafetyCheck inspects a draft against the case's constraints before it may
// execute: exempt items requested again, a fee in the text that differs from
// the quoted one, PII such as SSNs, aggressive tone outside rebuttals, text
// that tries to instruct the agent, email drafts for portal cases, and a
// reviewer instruction the drafter could not apply (NeedsEdit).
func SafetyCheck(action ActionType, d Draft, c CaseContext, a *Analysis) SafetyResult {
	var r SafetyResult
	if d.NeedsEdit != "" {
		r.RiskFlags = append(r.RiskFlags, RiskNeedsEdit)
		r.Warnings = append(r.Warnings, d.NeedsEdit)
	}
	if d.HumanTask {
		return r
	}
	text := d.Subject + "\n" + d.Text
	if strings.TrimSpace(d.Text) == "" {
		r.RiskFlags = append(r.RiskFlags, RiskEmptyDraft)
	}
	if action != ActionSendRebuttal {
		for _, it := range c.ScopeItems {
			if (it.Status == ScopeExempt || it.Status == ScopeDenied) && it.Item != "" &&
				strings.Contains(strings.ToLower(text), strings.ToLower(it.Item)) {
				r.RiskFlags = append(r.RiskFlags, RiskRequestsExemptItem)
				r.Warnings = append(r.Warnings, "draft asks again for "+it.Status.String()+" item "+it.Item)
				break
			}
		}
		if aggressiveRe.MatchString(d.Text) {
			r.RiskFlags = append(r.RiskFlags, RiskAggressiveTone)
		}
	}
	if action == ActionApproveFee && a != nil && a.FeeCents != nil {
		want := Cents(*a.FeeCents)
		for _, m := range dollarRe.FindAllString(d.Text, -1) {
			if strings.ReplaceAll(m, " ", "") != want {
				r.RiskFlags = append(r.RiskFlags, RiskFeeMismatch)
				r.Warnings = append(r.Warnings, "draft mentions "+m+" but the quoted fee is "+want)
				break
			}
		}
	}
	if ssnRe.MatchString(text) {
		r.RiskFlags = append(r.RiskFlags, RiskPII)
	}
	if injectionRe.MatchString(text) || (a != nil && len(a.InjectionFlags) > 0) {
		r.RiskFlags = append(r.RiskFlags, RiskInjection)
	}
	if c.PortalURL != "" && action.SendsEmail() {
		r.RiskFlags = append(r.RiskFlags, RiskPortalEmail)
		r.Warnings = append(r.Warnings, "portal case: the action becomes a human task, no email is sent")
	}
	return r
}

// String returns the status name.
func (s ScopeStatus) String() string { return string(s) }
