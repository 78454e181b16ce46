package analysis

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/foiaflow/foiaflow/clock"
	"github.com/foiaflow/foiaflow/workflow"
)

// Limits on agency-supplied exemption strings quoted in an appeal.
const (
	maxAppealExemptions    = 10
	maxExemptionTextLength = 120
)

// appealNoun is what the jurisdiction calls the appeal: an "internal
// review" under the UK Freedom of Information Act 2000, else an appeal (or
// a request for review by an outside body).
func appealNoun(c workflow.CaseContext) string {
	switch {
	case c.Jurisdiction == clock.UKAbbrev:
		return "Request for internal review"
	case c.Jurisdiction == clock.FederalAbbrev:
		return "Freedom of Information Act Appeal"
	case c.Appeal.Kind == workflow.AppealToExternal:
		return "Request for review"
	}
	return "Appeal"
}

// appeal writes the administrative appeal of a denial (docs/letters.md
// "Appeal"): it names the appeal right and the statute, the determination
// appealed and its date, the records at issue, each exemption claimed with
// an argument against it, the agency's burden, segregability, the public
// interest, the relief asked, and the filing deadline when the statute sets
// one. An appeal to an outside body is a human task: the text starts with
// filing instructions for the reviewer.
func appeal(req workflow.DraftRequest) []string {
	c := req.Case
	var p []string
	body := firstNonEmpty(c.Appeal.Body, "the head of the agency")
	if c.Appeal.Kind == workflow.AppealToExternal {
		task := "Human task: file this appeal with " + body
		if c.AppealDeadline != nil {
			task += " no later than " + day(*c.AppealDeadline, c)
		}
		task += ". Attach the original request and " + agencyOf(c) + "'s response, send a copy to " + agencyOf(c) +
			", then approve this proposal to record the filing date; the case then follows the appeal's clock. Letter to file:"
		p = append(p, task)
	}
	p = append(p, "To "+body+":")
	determination := "denial"
	if a := req.Analysis; a != nil && a.Class == workflow.ClassPartial {
		determination = "partial denial"
	}
	verb := "I appeal"
	switch {
	case c.Jurisdiction == clock.UKAbbrev:
		verb = "I request an internal review of"
	case c.Appeal.Kind == workflow.AppealToExternal:
		verb = "I request review of"
	}
	what := fmt.Sprintf("Under %s, %s the %s of my request under %s", firstNonEmpty(c.Appeal.Citation, statuteOf(c)), verb, determination, statuteOf(c))
	if c.TrackingNumber != "" {
		what += " (tracking number " + c.TrackingNumber + ")"
	}
	if c.SentAt != nil {
		what += ", sent on " + c.SentAt.UTC().Format("January 2, 2006")
	}
	if c.DeniedAt != nil {
		what += " and answered by " + agencyOf(c) + " on " + day(*c.DeniedAt, c)
	}
	p = append(p, what+".")
	if items := atIssue(c); len(items) > 0 {
		p = append(p, "The records at issue are:", bullets(items))
	}
	p = append(p, exemptionArguments(req)...)
	p = append(p, burden(c), segregability(c), publicInterest(c))
	p = append(p, "I ask that you reverse the "+determination+
		", release the records withheld or every reasonably segregable portion of them, and provide an index identifying each record or portion still withheld, the exemption claimed for it and how the exemption applies.")
	if t := timing(c); t != "" {
		p = append(p, t)
	}
	p = append(p, signoff(c))
	return p
}

// appealWord is the appeal in running text.
func appealWord(c workflow.CaseContext) string {
	switch {
	case c.Jurisdiction == clock.UKAbbrev:
		return "request for an internal review"
	case c.Appeal.Kind == workflow.AppealToExternal:
		return "request for review"
	}
	return "appeal"
}

// appealRight names the section granting the appeal, else the statute.
func appealRight(c workflow.CaseContext) string {
	return firstNonEmpty(c.Appeal.Citation, statuteOf(c))
}

// atIssue lists the withheld scope items, or every requested record when
// the reply did not say which were withheld.
func atIssue(c workflow.CaseContext) []string {
	var out []string
	for _, s := range c.ScopeItems {
		if s.Status == workflow.ScopeDenied || s.Status == workflow.ScopeExempt || s.Status == workflow.ScopePartial {
			out = append(out, s.Item)
		}
	}
	if len(out) == 0 {
		return records(c)
	}
	return out
}

// exemptionArguments names each exemption the agency claimed and argues
// it; with none cited, the denial fails for want of one.
func exemptionArguments(req workflow.DraftRequest) []string {
	c := req.Case
	var ex []string
	if req.Analysis != nil {
		for _, e := range req.Analysis.Exemptions {
			if e = strings.Join(strings.Fields(e), " "); e != "" && len(ex) < maxAppealExemptions {
				ex = append(ex, clip(e, maxExemptionTextLength))
			}
		}
	}
	if len(ex) == 0 {
		return []string{"The response cites no specific exemption. Under " + statuteOf(c) +
			", a withholding must identify the exemption that applies to each record withheld; a denial that cites none cannot be sustained, and every responsive record should be released."}
	}
	args := make([]string, 0, len(ex))
	for _, e := range ex {
		args = append(args, e+": "+exemptionArgument(e))
	}
	return []string{"The response claimed the following exemption(s). I contest each of them:", bullets(args)}
}

// exemptionKinds recognise the common families of exemptions by their
// citation or wording, federal and state; the first match argues.
var exemptionKinds = []struct {
	re  *regexp.Regexp
	arg string
}{
	{regexp.MustCompile(`(?i)\(b\)\s*\(7\)|7\(1\)\(d\)|investigat|law enforcement|832\.7|7923\.600|criminal|section 3[01]\b`),
		"the agency must identify the enforcement proceeding concerned and show how releasing each record could reasonably be expected to interfere with it; a closed matter, or information already made public, is not protected."},
	{regexp.MustCompile(`(?i)\(b\)\s*\(6\)|7\(1\)\(c\)|privacy|personal|medical|health|164\.5|hipaa|civ\. code|section 40\b`),
		"the agency must show a privacy interest in each record that is more than minimal and weigh it against the public interest in disclosure; names and identifying details can be redacted while the rest of each record is released."},
	{regexp.MustCompile(`(?i)\(b\)\s*\(5\)|deliberative|predecisional|privilege|attorney|work product|7\(1\)\(f\)|7\(1\)\(m\)|section 3[56]\b|section 42\b`),
		"the agency must show that each record is both predecisional and deliberative, or privileged; factual material and final decisions are not protected and must be released."},
	{regexp.MustCompile(`(?i)\(b\)\s*\(4\)|trade secret|commercial|proprietary|confidential business|section 43\b`),
		"the agency must show that each record holds commercial information that is actually kept confidential and whose release would cause competitive harm; contract prices and payments of public money are not protected."},
	{regexp.MustCompile(`(?i)\(b\)\s*\(3\)|statute|confidential by law|section 44\b`),
		"withholding under another law requires that the law itself exempt these records from disclosure; please identify that law and the provision that applies to each record."},
}

func exemptionArgument(e string) string {
	for _, k := range exemptionKinds {
		if k.re.MatchString(e) {
			return k.arg
		}
	}
	return "the response does not explain how this exemption applies to each record withheld; the agency must identify the records withheld under it and the facts that bring each within its terms."
}

func burden(c workflow.CaseContext) string {
	p := "The agency bears the burden of justifying each withholding, and exemptions are construed narrowly in favor of disclosure; a conclusory assertion does not carry that burden."
	if c.Jurisdiction == clock.FederalAbbrev {
		p += " Under 5 U.S.C. § 552(a)(8)(A), the agency may withhold information only if it reasonably foresees that disclosure would harm an interest an exemption protects, or disclosure is prohibited by law."
	}
	return p
}

func segregability(c workflow.CaseContext) string {
	p := "Even where an exemption covers part of a record, every reasonably segregable non-exempt portion must be released, with redactions limited to the exempt material and each redaction marked with the exemption claimed."
	if c.Jurisdiction == clock.FederalAbbrev {
		p = "5 U.S.C. § 552(b) requires that any reasonably segregable portion of a record be released after deletion of the exempt portions; each deletion must be marked with the exemption claimed."
	}
	return p
}

func publicInterest(c workflow.CaseContext) string {
	records := "The records"
	if c.Subject != "" {
		records += " (" + strings.TrimSpace(c.Subject) + ")"
	}
	p := "There is a strong public interest in release. " + records + " concern the conduct of a public agency in its official duties, and disclosure would contribute to public understanding of how it performs them. Where an exemption turns on a balance of interests, that interest weighs in favor of release."
	if c.Jurisdiction == clock.UKAbbrev {
		p += " For qualified exemptions, section 2 of the Freedom of Information Act 2000 requires disclosure unless the public interest in maintaining the exemption outweighs the public interest in disclosure."
	}
	return p
}

// timing states the filing deadline and the decision period, when the
// statute sets them.
func timing(c workflow.CaseContext) string {
	var s []string
	if c.AppealDeadline != nil {
		s = append(s, "This "+appealWord(c)+" is made within the period the law allows, which ends on "+day(*c.AppealDeadline, c)+".")
	}
	if n := c.Appeal.DecideDays; n > 0 {
		s = append(s, "I look forward to your decision within the "+periodText(n, c.Appeal.DecideBusinessDays, c)+" the law provides.")
	}
	return strings.Join(s, " ")
}

// appealFollowup follows up on an appeal that is past its decision date.
func appealFollowup(req workflow.DraftRequest) []string {
	c := req.Case
	var p []string
	if c.Appeal.Kind == workflow.AppealToExternal {
		p = append(p, "Human task: send this follow-up to "+firstNonEmpty(c.Appeal.Body, "the reviewing body")+
			" about the appeal filed on "+day(*c.AppealedAt, c)+", then approve this proposal to record it.")
	}
	p = append(p, "Hello,")
	p = append(p, fmt.Sprintf("I am following up on my %s of the denial of %s, filed on %s, %d days ago.",
		appealWord(c), requestRef(c), day(*c.AppealedAt, c), req.DaysElapsed))
	if n := c.Appeal.DecideDays; n > 0 {
		p = append(p, "Under "+appealRight(c)+", a decision was due within "+periodText(n, c.Appeal.DecideBusinessDays, c)+
			". Please let me know when I can expect it.")
	} else {
		p = append(p, "Please let me know the status of the appeal and when I can expect a decision.")
	}
	if req.FollowupNumber > 1 {
		p = append(p, fmt.Sprintf("This is follow-up number %d on the appeal.", req.FollowupNumber))
	}
	p = append(p, "Thank you for your help.", signoff(c))
	return p
}

// periodText writes n days as the law counts them: business days (working
// days in the UK) or days.
func periodText(n int, business bool, c workflow.CaseContext) string {
	unit := "days"
	switch {
	case business && c.Jurisdiction == clock.UKAbbrev:
		unit = "working days"
	case business:
		unit = "business days"
	}
	return fmt.Sprintf("%d %s", n, unit)
}

// day formats an instant as the civil date of the agency's time zone
// (deadlines end at 23:59:59 local time, which is the next day in UTC).
func day(t time.Time, c workflow.CaseContext) string {
	loc := clock.DefaultLocation()
	if c.AgencyTimezone != "" {
		if l, err := time.LoadLocation(c.AgencyTimezone); err == nil {
			loc = l
		}
	}
	return t.In(loc).Format("January 2, 2006")
}
