package analysis

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/foiaflow/foiaflow/workflow"
)

// TemplateName is the Draft.Drafter value of the offline drafter.
const TemplateName = "templates/1"

// MaxInstructionBytes caps a reviewer's ADJUST instruction.
const MaxInstructionBytes = 2000

// Templates is the offline drafter (seed 000 §3.5, §8): deterministic
// letters per action from the case, the triggering analysis and the clock
// value in the request. Letters cite the statute as written for letters
// (CaseContext.Statute), never research notes. An ADJUST instruction is
// applied to the version being adjusted through a small grammar of
// structured adjustments (drafter_adjust.go, docs/letters.md); anything
// else leaves the text unchanged and asks the reviewer for an edited text
// (Draft.NeedsEdit). Safe for concurrent use.
type Templates struct{}

var _ workflow.Drafter = Templates{}

// Draft writes the message for req.Action. It returns an error for actions
// that produce no message (NONE) and for unknown actions.
func (Templates) Draft(ctx context.Context, req workflow.DraftRequest) (workflow.Draft, error) {
	if err := ctx.Err(); err != nil {
		return workflow.Draft{}, err
	}
	d, err := draftTemplate(req)
	if err != nil {
		return workflow.Draft{}, err
	}
	if strings.TrimSpace(req.Instruction) != "" {
		d = adjust(d, req)
	}
	d.Drafter = TemplateName
	return d, nil
}

func draftTemplate(req workflow.DraftRequest) (workflow.Draft, error) {
	c := req.Case
	var paras []string
	var subject string
	human := false
	switch req.Action {
	case workflow.ActionSendInitial:
		subject = firstNonEmpty(c.Subject, "Public records request")
		paras = initialRequest(c)
	case workflow.ActionSendFollowup:
		what := "Follow-up"
		if c.AppealedAt != nil {
			what = appealNoun(c) + " follow-up"
		}
		subject = reSubject(c, fmt.Sprintf("%s #%d", what, max(req.FollowupNumber, 1)))
		paras = followup(req)
		human = c.AppealedAt != nil && c.Appeal.Kind == workflow.AppealToExternal
	case workflow.ActionApproveFee:
		subject = reSubject(c, "Fee acceptance")
		paras = feeAcceptance(req)
	case workflow.ActionSendClarification:
		subject = reSubject(c, "Clarification")
		paras = clarification(req)
	case workflow.ActionSendRebuttal:
		subject = reSubject(c, "Response to denial")
		paras = rebuttal(req)
	case workflow.ActionSendAppeal:
		subject, human = reSubject(c, appealNoun(c)), c.Appeal.Kind == workflow.AppealToExternal
		paras = appeal(req)
	case workflow.ActionSubmitPortal:
		subject, human = "Human task: submit request via portal - "+agencyOf(c), true
		paras = portalTask(req)
	case workflow.ActionRefile:
		subject, human = "Human task: refile with the right agency - "+agencyOf(c), true
		paras = refileTask(req)
	case workflow.ActionEscalate:
		subject, human = "Escalation: case "+caseRef(c)+" needs a decision", true
		paras = escalation(req)
	case workflow.ActionCloseCompleted:
		subject = "Close notes: case " + caseRef(c) + " completed"
		paras = closeNotes(req, "completed: the agency delivered the records")
	case workflow.ActionCloseNoRecords:
		subject = "Close notes: case " + caseRef(c) + " closed, no records"
		paras = closeNotes(req, "closed: the agency reported no responsive records")
	default:
		return workflow.Draft{}, fmt.Errorf("draft: action %q produces no message", req.Action)
	}
	text := strings.Join(paras, "\n\n") + "\n"
	return workflow.Draft{Subject: subject, Text: text, HTML: workflow.TextToHTML(text), HumanTask: human}, nil
}

// cleanInstruction trims, drops control characters and caps the length.
func cleanInstruction(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > MaxInstructionBytes {
		s = clip(s, MaxInstructionBytes)
	}
	return s
}

func agencyOf(c workflow.CaseContext) string { return firstNonEmpty(c.AgencyName, "the agency") }

func caseRef(c workflow.CaseContext) string {
	if c.CaseID != 0 {
		return fmt.Sprintf("#%d", c.CaseID)
	}
	return firstNonEmpty(c.Subject, "(unnamed)")
}

func statuteOf(c workflow.CaseContext) string {
	return firstNonEmpty(c.Statute, "the applicable public records law")
}

func requesterOf(c workflow.CaseContext) string {
	return firstNonEmpty(c.RequesterName, "The requester")
}

func reSubject(c workflow.CaseContext, what string) string {
	s := "RE: " + firstNonEmpty(c.Subject, "Public records request")
	if c.TrackingNumber != "" {
		s += " (Request " + c.TrackingNumber + ")"
	}
	return s + " - " + what
}

func requestRef(c workflow.CaseContext) string {
	if c.TrackingNumber != "" {
		return "my public records request (tracking number " + c.TrackingNumber + ")"
	}
	return "my public records request"
}

func sentOn(c workflow.CaseContext) string {
	if c.SentAt == nil {
		return ""
	}
	return " sent on " + c.SentAt.UTC().Format("January 2, 2006")
}

func bullets(items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("- " + strings.TrimSpace(it))
	}
	return b.String()
}

func records(c workflow.CaseContext) []string {
	if len(c.RequestedRecords) > 0 {
		return c.RequestedRecords
	}
	var out []string
	for _, s := range c.ScopeItems {
		out = append(out, s.Item)
	}
	return out
}

func signoff(c workflow.CaseContext) string { return "Sincerely,\n" + requesterOf(c) }

func initialRequest(c workflow.CaseContext) []string {
	p := []string{
		"To Whom It May Concern:",
		"Pursuant to " + statuteOf(c) + ", I request copies of the following records:",
	}
	if r := records(c); len(r) > 0 {
		p = append(p, bullets(r))
	}
	p = append(p,
		"I ask that the records be provided electronically where possible. If fees are expected to exceed $25.00, please inform me of the estimate before fulfilling the request. If any portion is withheld, please cite the specific exemption for each withholding and release all reasonably segregable portions.",
		"Thank you for your assistance. I look forward to your response within the time the statute requires.",
		signoff(c))
	return p
}

func followup(req workflow.DraftRequest) []string {
	c := req.Case
	if c.AppealedAt != nil {
		return appealFollowup(req)
	}
	p := []string{"Hello,"}
	s := fmt.Sprintf("I am following up on %s%s, %d days ago.", requestRef(c), sentOn(c), req.DaysElapsed)
	p = append(p, s)
	p = append(p, "Under "+statuteOf(c)+", a response was due by now. Please let me know the status of the request and an estimated date of completion.")
	if req.FollowupNumber > 1 {
		p = append(p, fmt.Sprintf("This is follow-up number %d; I have not yet received a substantive response.", req.FollowupNumber))
	}
	p = append(p, "Thank you for your help.", signoff(c))
	return p
}

func feeAcceptance(req workflow.DraftRequest) []string {
	c := req.Case
	fee, currency := c.FeeCents, c.FeeCurrency
	if req.Analysis != nil && req.Analysis.FeeCents != nil {
		fee, currency = req.Analysis.FeeCents, req.Analysis.FeeCurrency
	}
	amount := "the quoted fee"
	if fee != nil {
		amount = "the fee of " + workflow.Money(*fee, currency)
	}
	return []string{
		"Hello,",
		"Thank you for the fee estimate for " + requestRef(c) + ". I agree to pay " + amount + ".",
		"Please let me know which payment methods you accept (check, money order or credit card) and send an invoice with the payable name and mailing address, or a payment link. Please proceed with processing the request on receipt of payment.",
		signoff(c),
	}
}

func clarification(req workflow.DraftRequest) []string {
	c := req.Case
	p := []string{"Hello,", "Thank you for your message about " + requestRef(c) + "."}
	if req.Analysis != nil && len(req.Analysis.KeyPoints) > 0 {
		p = append(p, "You wrote: \""+clip(req.Analysis.KeyPoints[0], 300)+"\"")
	}
	if r := records(c); len(r) > 0 {
		p = append(p, "To clarify, I am seeking the following records:", bullets(r))
	}
	p = append(p, "I am happy to narrow the date range or the search terms if that helps you locate the records with reasonable effort; please tell me what would make the search manageable. Please continue processing the request.", signoff(c))
	return p
}

func rebuttal(req workflow.DraftRequest) []string {
	c := req.Case
	var ex []string
	if req.Analysis != nil {
		ex = req.Analysis.Exemptions
	}
	p := []string{"Hello,", "I am writing about your response to " + requestRef(c) + "."}
	if len(ex) > 0 {
		p = append(p, "Your response invoked the following exemption(s): "+strings.Join(ex, "; ")+". Exemptions are construed narrowly, and the agency bears the burden of showing that each withheld record falls within one.")
	} else {
		p = append(p, "Your response did not cite a specific statutory exemption. Under "+statuteOf(c)+", a withholding must identify the exemption that applies to each record.")
	}
	if hasConstraint(c.Constraints, workflow.ConstraintInvestigationActive) || (req.Analysis != nil && hasConstraint(req.Analysis.ConstraintsToAdd, workflow.ConstraintInvestigationActive)) {
		p = append(p, "Where an active investigation is cited, please identify the harm that release of each record would cause and release the records whose disclosure would not interfere with the investigation.")
	}
	p = append(p,
		"Please release all reasonably segregable, non-exempt portions of the responsive records, with redactions limited to the exempt material, and provide an index identifying each record or portion withheld and the exemption claimed for it.",
		"If you maintain the denial, please confirm in writing that this is your final determination and name the official responsible for it.",
		signoff(c))
	return p
}

func portalTask(req workflow.DraftRequest) []string {
	c := req.Case
	url, vendor := c.PortalURL, ""
	if req.Analysis != nil {
		url = firstNonEmpty(req.Analysis.PortalURL, url)
		vendor = req.Analysis.PortalVendor
	}
	where := firstNonEmpty(url, "the agency's records portal (no URL found in the reply)")
	if vendor != "" {
		where += " (" + vendor + ")"
	}
	p := []string{
		"Submit this request through " + agencyOf(c) + "'s portal: " + where + ".",
		"Steps: log in or create an account, paste the request text below, attach nothing else, and record the portal's tracking number on the case. Do not email the agency for this case.",
	}
	if r := records(c); len(r) > 0 {
		p = append(p, "Records requested:", bullets(r))
	}
	return p
}

func refileTask(req workflow.DraftRequest) []string {
	c := req.Case
	to := ""
	if req.Analysis != nil {
		to = req.Analysis.ReferredAgency
	}
	p := []string{agencyOf(c) + " says it is not the custodian of these records."}
	if to != "" {
		p = append(p, "Refile the request with: "+to+".")
	} else {
		p = append(p, "The reply names no other agency: find the custodian before refiling.")
	}
	p = append(p, "Create a new case for the new agency with the same requested records and link it to case "+caseRef(c)+".")
	if r := records(c); len(r) > 0 {
		p = append(p, "Records requested:", bullets(r))
	}
	return p
}

func escalation(req workflow.DraftRequest) []string {
	c := req.Case
	p := []string{fmt.Sprintf("Case %s with %s needs a reviewer decision.", caseRef(c), agencyOf(c))}
	if a := req.Analysis; a != nil {
		p = append(p, fmt.Sprintf("Latest reply: class %s, confidence %.2f, tone %s.", a.Class, a.Confidence, a.Sentiment))
		var facts []string
		if a.FeeCents != nil {
			facts = append(facts, "fee "+workflow.Money(*a.FeeCents, a.FeeCurrency))
		}
		if a.Deadline != nil {
			facts = append(facts, "date "+a.Deadline.Format("2006-01-02"))
		}
		if a.TrackingNumber != "" {
			facts = append(facts, "tracking "+a.TrackingNumber)
		}
		if len(a.InjectionFlags) > 0 {
			facts = append(facts, "prompt-injection flags "+strings.Join(a.InjectionFlags, ","))
		}
		if len(facts) > 0 {
			p = append(p, "Facts: "+strings.Join(facts, "; ")+".")
		}
		if len(a.Reasons) > 0 {
			p = append(p, "Why:\n"+bullets(a.Reasons[:min(len(a.Reasons), 5)]))
		}
	} else {
		p = append(p, fmt.Sprintf("No reply after %d days and %d follow-ups.", req.DaysElapsed, req.FollowupNumber))
	}
	if len(c.Constraints) > 0 {
		cs := make([]string, len(c.Constraints))
		for i, x := range c.Constraints {
			cs[i] = string(x)
		}
		sort.Strings(cs)
		p = append(p, "Case constraints: "+strings.Join(cs, ", ")+".")
	}
	return p
}

func closeNotes(req workflow.DraftRequest, what string) []string {
	c := req.Case
	p := []string{fmt.Sprintf("Case %s with %s %s (%s).", caseRef(c), agencyOf(c), what, req.Now.UTC().Format(time.DateOnly))}
	if a := req.Analysis; a != nil {
		if a.HasRecordsLink {
			p = append(p, "The reply carries a download link or attachment.")
		}
		if len(a.KeyPoints) > 0 {
			p = append(p, "Key points:\n"+bullets(a.KeyPoints[:min(len(a.KeyPoints), 4)]))
		}
	}
	return p
}

func hasConstraint(cs []workflow.Constraint, c workflow.Constraint) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}
