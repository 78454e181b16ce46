package workflow

import "fmt"

// Pause reasons shown to reviewers.
const (
	PauseFeeQuote      = "FEE_QUOTE"
	PauseDenial        = "DENIAL"
	PauseCloseAction   = "CLOSE_ACTION"
	PauseClarification = "CLARIFICATION"
	PauseHumanTask     = "HUMAN_TASK"
	PauseEscalation    = "ESCALATION"
	PauseSupervised    = "SUPERVISED"
	PauseManual        = "MANUAL"
	PauseSensitive     = "SENSITIVE"
	PauseFollowup      = "FOLLOWUP"
	// PauseUnverifiedSender: the reply proved its thread but came from a
	// sender not on the agency's allowlist (issue 10): a human decides.
	PauseUnverifiedSender = "UNVERIFIED_SENDER"
	PauseAppeal           = "APPEAL"
	// PauseAutoSendLimit: the case reached AUTO_SENDS_PER_CASE_PER_DAY
	// automatic emails; a send it would have made waits for a human (loop
	// safety, issue 10).
	PauseAutoSendLimit = "AUTO_SEND_LIMIT"
	// PauseReplay: the proposal comes from a replay (a run forked from an
	// earlier step), which never executes without a human decision.
	PauseReplay = "REPLAY"
)

// RoutingPolicy holds the thresholds of decide_next_action.
type RoutingPolicy struct {
	// FeeAutoApproveMaxCents: AUTO accepts fees up to this amount (cents).
	FeeAutoApproveMaxCents int64
	// MinConfidence below which a reply is escalated (0–1).
	MinConfidence float64
	// MaxFollowups before a silent agency is escalated.
	MaxFollowups int
}

// DefaultRoutingPolicy: $50 auto-approve ceiling, 0.8 confidence. It has no
// MaxFollowups: that comes from MAX_FOLLOWUPS (the configuration holds its
// one default), and a zero MaxFollowups escalates the first NO_RESPONSE.
var DefaultRoutingPolicy = RoutingPolicy{FeeAutoApproveMaxCents: 5000, MinConfidence: GateConfidence}

// GateConfidence is the default MIN_CONFIDENCE: an analysis less sure than
// this escalates to a human. The offline model's probability is calibrated
// on replies from sources it was not trained on; at 0.8 about 3 in 100 of
// the replies it acts on are misread there, at 0.6 about 8 (make eval CV=1).
const GateConfidence = 0.80

// RouteInput is everything decide_next_action looks at.
type RouteInput struct {
	Class          Class
	Confidence     float64
	Sentiment      Sentiment
	Mode           AutopilotMode
	FeeCents       *int64
	FeeCurrency    string // ISO 4217 of FeeCents; "" is USD
	Jurisdiction   string // the case's jurisdiction abbreviation ("US", "TX", "UK", …)
	Disagreement   string // two confident analyses named different classes
	DenialWeak     bool
	Withheld       bool // PARTIAL_DELIVERY: items withheld or exemptions invoked
	HasRecords     bool // RECORDS_READY: an attachment or download link exists
	Portal         bool // the case goes through an agency portal: never emailed
	FollowupsSent  int
	InjectionFlags []string
	// SenderUnverified forces a human gate: the sender is not on the
	// agency's allowlist.
	SenderUnverified bool
	// Appeal is where the jurisdiction's statute sends an appeal of a
	// denial; AppealWindowClosed is true once the filing period has passed;
	// Appealed is true once the case's appeal went out (replies and timers
	// then belong to the appeal).
	Appeal             AppealKind
	AppealWindowClosed bool
	Appealed           bool
}

// RouteDecision is decide_next_action's answer (DESIGN.md routing table).
type RouteDecision struct {
	Action ActionType `json:"action"`
	// Auto is true when the action may execute without a human.
	Auto        bool     `json:"auto"`
	PauseReason string   `json:"pause_reason,omitempty"`
	HumanTask   bool     `json:"human_task,omitempty"`
	Reasons     []string `json:"reasons"`
}

// Decide applies the routing table of DESIGN.md. It is pure: the same input
// always yields the same decision.
func Decide(in RouteInput, p RoutingPolicy) RouteDecision {
	d := route(in, p)
	if in.SenderUnverified {
		return unverified(d)
	}
	if d.Action == ActionNone {
		return d
	}
	if len(in.InjectionFlags) > 0 && d.Auto {
		d.Auto = false
		d.PauseReason = PauseSensitive
		d.Reasons = append(d.Reasons, fmt.Sprintf("reply tries to instruct the agent (%v): a human decides", in.InjectionFlags))
	}
	if d.Auto && in.Mode != AutopilotAuto {
		d.Auto = false
		d.Reasons = append(d.Reasons, fmt.Sprintf("autopilot %s: every proposal is reviewed", in.Mode))
		if d.PauseReason == "" {
			d.PauseReason = PauseSupervised
		}
	}
	if in.Mode == AutopilotManual {
		d.PauseReason = PauseManual
	}
	return d
}

// unverified turns d into a human gate: a reply whose sender is not on the
// agency's allowlist never executes anything by itself, not even a
// record-only step (its facts are not applied either: see update_constraints).
func unverified(d RouteDecision) RouteDecision {
	why := "sender is not on the agency's allowlist: a human checks the reply before anything is done (allow the sender on the case's agency if genuine)"
	if d.Action == ActionNone {
		return RouteDecision{Action: ActionEscalate, PauseReason: PauseUnverifiedSender,
			Reasons: append(append([]string(nil), d.Reasons...), why)}
	}
	d.Auto, d.PauseReason = false, PauseUnverifiedSender
	d.Reasons = append(d.Reasons, why)
	return d
}

func route(in RouteInput, p RoutingPolicy) RouteDecision {
	auto := in.Mode == AutopilotAuto
	if in.Class == ClassNoResponse {
		if in.FollowupsSent >= p.MaxFollowups {
			return RouteDecision{Action: ActionEscalate, PauseReason: PauseEscalation,
				Reasons: []string{fmt.Sprintf("%d follow-ups sent without a reply (max %d)", in.FollowupsSent, p.MaxFollowups)}}
		}
		if in.Portal {
			return RouteDecision{Action: ActionSubmitPortal, HumanTask: true, PauseReason: PauseHumanTask,
				Reasons: []string{"portal case is past due: check the portal and follow up there (never emailed)"}}
		}
		if in.Appealed && in.Appeal == AppealToExternal {
			return RouteDecision{Action: ActionSendFollowup, HumanTask: true, PauseReason: PauseHumanTask,
				Reasons: []string{fmt.Sprintf("no decision on the appeal: follow-up %d with the reviewing body (a human sends it)", in.FollowupsSent+1)}}
		}
		r := fmt.Sprintf("no response: follow-up %d", in.FollowupsSent+1)
		if in.Appealed {
			r = fmt.Sprintf("no decision on the appeal: follow-up %d", in.FollowupsSent+1)
		}
		return RouteDecision{Action: ActionSendFollowup, Auto: auto, PauseReason: PauseFollowup, Reasons: []string{r}}
	}
	if in.Class == ClassUnknown || !in.Class.Valid() {
		return RouteDecision{Action: ActionEscalate, PauseReason: PauseEscalation,
			Reasons: []string{"reply could not be classified"}}
	}
	if in.Disagreement != "" {
		return RouteDecision{Action: ActionEscalate, PauseReason: PauseEscalation,
			Reasons: []string{"the analyzers disagree: " + in.Disagreement}}
	}
	if in.Confidence < p.MinConfidence {
		return RouteDecision{Action: ActionEscalate, PauseReason: PauseEscalation,
			Reasons: []string{fmt.Sprintf("%s at confidence %.2f below %.2f", in.Class, in.Confidence, p.MinConfidence)}}
	}
	if in.Sentiment == SentimentHostile {
		return RouteDecision{Action: ActionEscalate, PauseReason: PauseEscalation,
			Reasons: []string{"hostile tone: a human answers"}}
	}
	switch in.Class {
	case ClassAcknowledgment, ClassExtension:
		return RouteDecision{Action: ActionNone, Auto: true,
			Reasons: []string{string(in.Class) + ": record tracking number and move the due date"}}
	case ClassFeeQuote:
		if in.FeeCents == nil {
			return RouteDecision{Action: ActionApproveFee, PauseReason: PauseFeeQuote,
				Reasons: []string{"fee quote without a stated amount"}}
		}
		if !FeeRegime(in.Jurisdiction) || in.FeeCurrency != "" && in.FeeCurrency != "USD" {
			return RouteDecision{Action: ActionApproveFee, PauseReason: PauseFeeQuote,
				Reasons: []string{fmt.Sprintf("fee of %s (%s) in jurisdiction %q: no US fee regime to accept it under, a human decides",
					Money(*in.FeeCents, in.FeeCurrency), CurrencyOrUSD(in.FeeCurrency), in.Jurisdiction)}}
		}
		ok := *in.FeeCents <= p.FeeAutoApproveMaxCents
		r := fmt.Sprintf("fee %s %s auto-approve limit %s", Cents(*in.FeeCents), map[bool]string{true: "within", false: "over"}[ok], Cents(p.FeeAutoApproveMaxCents))
		return RouteDecision{Action: ActionApproveFee, Auto: auto && ok, PauseReason: PauseFeeQuote, Reasons: []string{r}}
	case ClassDenial:
		return contest(in, auto, "denial")
	case ClassPartial:
		if !in.Withheld {
			return RouteDecision{Action: ActionNone, Auto: true, Reasons: []string{"partial delivery: delivered items recorded"}}
		}
		return contest(in, auto, "partial delivery with items withheld")
	case ClassRecordsReady:
		if !in.HasRecords {
			return RouteDecision{Action: ActionCloseCompleted, PauseReason: PauseCloseAction,
				Reasons: []string{"records said ready but no attachment or download link: confirm before closing"}}
		}
		return RouteDecision{Action: ActionCloseCompleted, Auto: auto, PauseReason: PauseCloseAction,
			Reasons: []string{"records delivered (attachment or link present)"}}
	case ClassNoRecords:
		return RouteDecision{Action: ActionCloseNoRecords, PauseReason: PauseCloseAction,
			Reasons: []string{"no responsive records: a human decides to close or contest"}}
	case ClassClarification:
		return RouteDecision{Action: ActionSendClarification, Auto: auto, PauseReason: PauseClarification,
			Reasons: []string{"agency asks for clarification"}}
	case ClassWrongAgency:
		return RouteDecision{Action: ActionRefile, HumanTask: true, PauseReason: PauseHumanTask,
			Reasons: []string{"wrong agency: refile with the referred agency"}}
	case ClassPortalRedirect:
		return RouteDecision{Action: ActionSubmitPortal, HumanTask: true, PauseReason: PauseHumanTask,
			Reasons: []string{"agency requires its portal: submit there (never emailed)"}}
	}
	return RouteDecision{Action: ActionEscalate, PauseReason: PauseEscalation, Reasons: []string{"unrouted class " + string(in.Class)}}
}

// contest routes an adverse determination (docs/graph.md "Denials and
// appeals"): after the case's appeal, a further denial is the appeal's
// outcome and a human decides what comes next (court or an outside review);
// where the statute provides an administrative appeal and its window is
// open, the appeal is drafted and always gated (a legal filing with a
// deadline: never sent on autopilot; an outside body is a human task);
// otherwise a rebuttal, sent on autopilot only for a weak denial in AUTO.
func contest(in RouteInput, auto bool, what string) RouteDecision {
	switch {
	case in.Appealed:
		return RouteDecision{Action: ActionEscalate, PauseReason: PauseEscalation,
			Reasons: []string{what + " after the appeal: the appeal was decided against us; a human decides on further review (court or an outside body)"}}
	case (in.Appeal == AppealToAgency || in.Appeal == AppealToExternal) && !in.AppealWindowClosed:
		r := what + ": the statute provides an administrative appeal; appeal drafted (appeals are always reviewed)"
		if in.Appeal == AppealToExternal {
			r = what + ": the statute provides review by an outside body; appeal drafted for a human to file"
		}
		if in.DenialWeak {
			r += "; the denial looks weak"
		}
		return RouteDecision{Action: ActionSendAppeal, HumanTask: in.Appeal == AppealToExternal, PauseReason: PauseAppeal,
			Reasons: []string{r}}
	}
	r := what + " judged strong: a human decides whether to contest"
	if in.DenialWeak {
		r = what + " judged weak: rebuttal asks for segregable portions"
	}
	switch {
	case in.AppealWindowClosed:
		r += " (the appeal window has closed)"
	case in.Appeal == AppealNone:
		r += " (the statute provides no administrative appeal)"
	}
	return RouteDecision{Action: ActionSendRebuttal, Auto: auto && in.DenialWeak, PauseReason: PauseDenial, Reasons: []string{r}}
}

// Cents formats integer cents as US dollars, e.g. 123456 → "$1,234.56".
func Cents(c int64) string { return Money(c, "USD") }

// Money formats an amount in integer minor units (cents, pence) in its ISO
// 4217 currency: "$1,234.56" for USD (or ""), "£450.00", "€120.00",
// otherwise the code first ("AUD 30.00").
func Money(c int64, currency string) string {
	neg := c < 0
	if neg {
		c = -c
	}
	d := fmt.Sprintf("%d", c/100)
	for i := len(d) - 3; i > 0; i -= 3 {
		d = d[:i] + "," + d[i:]
	}
	sym := "$"
	switch currency {
	case "", "USD":
	case "GBP":
		sym = "£"
	case "EUR":
		sym = "€"
	default:
		sym = currency + " "
	}
	s := fmt.Sprintf("%s%s.%02d", sym, d, c%100)
	if neg {
		s = "-" + s
	}
	return s
}

// CurrencyOrUSD is the ISO 4217 code of a fee whose currency the analyzer
// left empty ("" is USD, as Analysis.FeeCurrency says).
func CurrencyOrUSD(c string) string {
	if c == "" {
		return "USD"
	}
	return c
}

// usJurisdictions are the jurisdictions whose public-records laws let an
// agency charge fees before it releases records: federal FOIA
// (5 U.S.C. 552(a)(4)(A)), the states, DC and the territories.
var usJurisdictions = map[string]bool{
	"US": true, "DC": true, "AL": true, "AK": true, "AZ": true, "AR": true, "CA": true, "CO": true, "CT": true,
	"DE": true, "FL": true, "GA": true, "HI": true, "ID": true, "IL": true, "IN": true, "IA": true, "KS": true,
	"KY": true, "LA": true, "ME": true, "MD": true, "MA": true, "MI": true, "MN": true, "MS": true, "MO": true,
	"MT": true, "NE": true, "NV": true, "NH": true, "NJ": true, "NM": true, "NY": true, "NC": true, "ND": true,
	"OH": true, "OK": true, "OR": true, "PA": true, "RI": true, "SC": true, "SD": true, "TN": true, "TX": true,
	"UT": true, "VT": true, "VA": true, "WA": true, "WV": true, "WI": true, "WY": true, "PR": true, "GU": true,
	"VI": true, "AS": true, "MP": true,
}

// FeeRegime reports whether a fee may be accepted automatically in a
// jurisdiction: only under a US public-records law. Elsewhere (the UK's FOI
// Act 2000, whose s.12 refuses over-cost requests rather than charging for
// them; Germany's IFG; the EU's Regulation 1049/2001) a fee in a reply is
// unusual enough that a human reads it first.
func FeeRegime(jurisdiction string) bool { return usJurisdictions[jurisdiction] }
