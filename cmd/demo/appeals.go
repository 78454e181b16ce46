package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/foiaflow/foiaflow/cmd/internal/fleet"
	"github.com/foiaflow/foiaflow/workflow"
)

// appealDetail is what the demo reads of a case to check its appeal.
type appealDetail struct {
	Case struct {
		AgencyTimezone string     `json:"agency_timezone"`
		AppealDeadline *time.Time `json:"appeal_deadline"`
	} `json:"case"`
	Messages []struct {
		Direction   string            `json:"direction"`
		Attachments []json.RawMessage `json:"attachments"`
	} `json:"messages"`
	Analyses []struct {
		Exemptions []string `json:"exemptions"`
	} `json:"analyses"`
	Proposals []struct {
		Action   string `json:"action_type"`
		Status   string `json:"status"`
		Versions []struct {
			BodyText string `json:"body_text"`
		} `json:"versions"`
	} `json:"proposals"`
}

// checkAppeals verifies every appeal proposal parked in the demo: it must
// cite each exemption the analyzer found in the denial and the appeal
// deadline (as the agency's calendar date). It prints the first appeal
// letter and returns how many appeals passed; a failing appeal is an error.
func checkAppeals(ctx context.Context, c *fleet.Client, cases []*demoCase) (int, error) {
	n := 0
	for _, dc := range cases {
		if dc.gate == nil || dc.gate.Action != workflow.ActionSendAppeal {
			continue
		}
		var d appealDetail
		if err := c.Do(ctx, http.MethodGet, fmt.Sprintf("/v1/cases/%d", dc.caseID), nil, &d, nil); err != nil {
			return n, err
		}
		letter := ""
		for _, p := range d.Proposals {
			if p.Action == string(workflow.ActionSendAppeal) && p.Status == workflow.ProposalPending && len(p.Versions) > 0 {
				letter = p.Versions[len(p.Versions)-1].BodyText
			}
		}
		if letter == "" {
			return n, fmt.Errorf("case %d: no pending appeal proposal text", dc.caseID)
		}
		var missing []string
		if len(d.Analyses) > 0 {
			for _, e := range d.Analyses[len(d.Analyses)-1].Exemptions {
				if e = strings.Join(strings.Fields(e), " "); !strings.Contains(letter, e) {
					missing = append(missing, "exemption "+e)
				}
			}
		}
		if d.Case.AppealDeadline == nil {
			missing = append(missing, "appeal deadline (none on the case)")
		} else {
			loc, err := time.LoadLocation(d.Case.AgencyTimezone)
			if err != nil {
				loc = time.UTC
			}
			if day := d.Case.AppealDeadline.In(loc).Format("January 2, 2006"); !strings.Contains(letter, day) {
				missing = append(missing, "appeal deadline "+day)
			}
		}
		if len(missing) > 0 {
			return n, fmt.Errorf("case %d: the appeal proposal lacks %s:\n%s", dc.caseID, strings.Join(missing, ", "), letter)
		}
		if n == 0 {
			step("the appeal proposal of case %d (reply %s), parked for a reviewer:", dc.caseID, dc.reply.Name)
			fmt.Println(strings.TrimSpace(letter))
			fmt.Println()
		}
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("no denial ended in an appeal proposal")
	}
	return n, nil
}

// attachmentsOf counts the attachments stored with the cases' inbound
// messages.
func attachmentsOf(ctx context.Context, c *fleet.Client, cases []*demoCase) (int, error) {
	n := 0
	for _, dc := range cases {
		var d appealDetail
		if err := c.Do(ctx, http.MethodGet, fmt.Sprintf("/v1/cases/%d", dc.caseID), nil, &d, nil); err != nil {
			return n, err
		}
		for _, m := range d.Messages {
			if m.Direction == "inbound" {
				n += len(m.Attachments)
			}
		}
	}
	return n, nil
}
