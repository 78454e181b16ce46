package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/foiaflow/foiaflow/api"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// caseData is the case page.
type caseData struct {
	page
	C            api.CaseDetail
	Records      *store.RecordCounts
	Messages     []messageItem
	Proposals    []proposalItem // pending first, then newest first
	Cost         api.CostTotals // every LLM call of the case (api.Server.Costs)
	State        api.AgentState
	CSRF         string
	IdemKey      string // one per rendering: a form sent twice is one decision
	MayDecide    bool
	EventsURL    string // the case's live events after the newest one shown (SSE)
	OpenEvidence bool
}

// messageItem is a message with its text split at the evidence of its
// analyses.
type messageItem struct {
	api.MessageView
	Segments []segment
	Analyses []analysisItem
}

// analysisItem is one stored analysis (workflow.Analysis) of a message.
type analysisItem struct {
	workflow.Analysis
	MessageRowID *int64 `json:"message_row_id"`
}

// proposalItem is a proposal with its current version and the diff the
// page shows (between From and To; by default the last two versions).
type proposalItem struct {
	store.Proposal
	Current  store.ProposalVersion
	Pending  bool
	From, To int
	Diff     []diffLine
}

// diffLine is one line of a unified diff; Kind is add, del, hunk or "".
type diffLine struct{ Kind, Text string }

// casePage: GET /cases/{id}?proposal=&from=&to= → the case page.
func (k *Desk) casePage(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		k.errorPage(w, r, http.StatusNotFound, "Not found", "No such case.")
		return
	}
	d, err := k.caseData(r, id)
	if err != nil {
		k.fail(w, r, err)
		return
	}
	switch q := r.URL.Query(); {
	case q.Get("decided") != "":
		d.Notice = decidedNotice(q.Get("decided"))
	}
	k.render(w, http.StatusOK, "case", d)
}

// decidedNotice says what a recorded decision will do.
func decidedNotice(action string) string {
	switch action {
	case "approve":
		return "Approved: the worker is executing the proposal (emails go out through the outbox)."
	case "edit":
		return "Your edited text was recorded as a new version and is being sent."
	case "adjust":
		return "Sent back to the drafter with your instruction: a new version will be parked for review."
	case "dismiss":
		return "Dismissed: nothing will be sent."
	case "withdraw":
		return "The case is being withdrawn."
	case "reject":
		return "Rejected: nothing will be sent and the case is escalated with your reason."
	case "skip":
		return "Skipped: nothing will be sent."
	case "promote":
		return "The earlier version is being made current: it will be parked for review again."
	}
	return "Decision recorded."
}

// caseData loads the page through the API's use cases.
func (k *Desk) caseData(r *http.Request, id int64) (caseData, error) {
	ctx := r.Context()
	ws := sessionFrom(ctx)
	out := caseData{page: page{Session: ws}, CSRF: ws.CSRFToken, IdemKey: "desk-" + randomToken()[:24],
		MayDecide: mayDecide(ws.Role), OpenEvidence: r.URL.Query().Get("evidence") == "open"}
	var err error
	if out.C, err = k.api.CaseDetail(ctx, id); err != nil {
		return out, err
	}
	out.Title = fmt.Sprintf("Case %d", id)
	msgs, err := k.api.CaseMessages(ctx, id)
	if err != nil {
		return out, err
	}
	out.Records = &msgs.Records
	if out.State, err = k.api.AgentState(ctx, id); err != nil {
		return out, err
	}
	byMsg := map[int64][]analysisItem{}
	for _, raw := range out.C.Analyses {
		var a analysisItem
		if json.Unmarshal(raw, &a) == nil && a.MessageRowID != nil {
			byMsg[*a.MessageRowID] = append(byMsg[*a.MessageRowID], a)
		}
	}
	for _, m := range msgs.Messages {
		item := messageItem{MessageView: m, Analyses: byMsg[m.ID]}
		var spans []string
		for _, a := range item.Analyses {
			spans = append(spans, evidenceSpans(a.Reasons)...)
		}
		item.Segments = highlight(m.Text, spans)
		out.Messages = append(out.Messages, item)
	}
	out.Proposals = proposalItems(out.C.Proposals, r)
	cost, err := k.api.Costs(ctx, id, time.Unix(0, 0), k.now().Add(time.Minute))
	if err != nil {
		return out, err
	}
	out.Cost = cost.Total
	last, err := k.st.LastCaseEventID(ctx, id)
	if err != nil {
		return out, err
	}
	out.EventsURL = fmt.Sprintf("/cases/%d/events?last_event_id=%d", id, last)
	return out, nil
}

// proposalItems orders proposals pending first and computes each one's
// diff: the versions named by ?proposal=&from=&to=, else the last two.
func proposalItems(ps []store.Proposal, r *http.Request) []proposalItem {
	q := r.URL.Query()
	var pending, rest []proposalItem
	for _, p := range ps {
		it := proposalItem{Proposal: p, Pending: p.Status == workflow.ProposalPending}
		for _, v := range p.Versions {
			if v.Version == p.CurrentVersion {
				it.Current = v
			}
		}
		if n := len(p.Versions); n > 1 {
			it.From, it.To = p.Versions[n-2].Version, p.Versions[n-1].Version
			if q.Get("proposal") == strconv.FormatInt(p.ID, 10) {
				if f, err := strconv.Atoi(q.Get("from")); err == nil && version(p.Versions, f) != nil {
					it.From = f
				}
				if t, err := strconv.Atoi(q.Get("to")); err == nil && version(p.Versions, t) != nil {
					it.To = t
				}
			}
			it.Diff = diffLines(api.DiffVersions(*version(p.Versions, it.From), *version(p.Versions, it.To)))
		}
		if it.Pending {
			pending = append(pending, it)
		} else {
			rest = append(rest, it)
		}
	}
	return append(pending, rest...)
}

func version(vs []store.ProposalVersion, n int) *store.ProposalVersion {
	for i := range vs {
		if vs[i].Version == n {
			return &vs[i]
		}
	}
	return nil
}

// diffLines classifies the lines of a unified diff for colouring.
func diffLines(u string) []diffLine {
	var out []diffLine
	for _, l := range strings.Split(strings.TrimRight(u, "\n"), "\n") {
		if l == "" && len(out) == 0 {
			continue
		}
		kind := ""
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			kind = "hunk"
		case strings.HasPrefix(l, "@@"):
			kind = "hunk"
		case strings.HasPrefix(l, "+"):
			kind = "add"
		case strings.HasPrefix(l, "-"):
			kind = "del"
		}
		out = append(out, diffLine{Kind: kind, Text: l})
	}
	return out
}

// decide: POST /cases/{caseId}/proposals/{proposalId}/decide (csrf,
// action, version, idempotency_key, and subject/body_text for edit or
// instruction for adjust) → api.Server.Decide with the session's reviewer,
// then a redirect to the case. A refused decision re-renders the case with
// the API's status and a banner; a version that is no longer current says
// the proposal changed since the page was loaded.
func (k *Desk) decide(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ws := sessionFrom(ctx)
	caseID, err1 := strconv.ParseInt(r.PathValue("caseId"), 10, 64)
	proposalID, err2 := strconv.ParseInt(r.PathValue("proposalId"), 10, 64)
	if err1 != nil || err2 != nil {
		k.errorPage(w, r, http.StatusNotFound, "Not found", "No such proposal.")
		return
	}
	if !mayDecide(ws.Role) {
		k.errorPage(w, r, http.StatusForbidden, "Refused", "Your role may not decide proposals.")
		return
	}
	action := r.PostFormValue("action")
	version, _ := strconv.Atoi(r.PostFormValue("version"))
	in := api.DecisionInput{CaseID: caseID, ProposalID: proposalID, Action: action,
		IdempotencyKey: r.PostFormValue("idempotency_key"), Request: api.DecisionRequest{Version: version}}
	switch action {
	case "edit":
		in.Request.BodyText = strings.ReplaceAll(r.PostFormValue("body_text"), "\r\n", "\n")
		in.Request.Subject = r.PostFormValue("subject")
	case "adjust":
		in.Request.Instruction = r.PostFormValue("instruction")
	case "reject":
		in.Request.Reason = strings.TrimSpace(r.PostFormValue("reason"))
	case "promote":
		in.Request.PromoteVersion, _ = strconv.Atoi(r.PostFormValue("promote_version"))
	}
	_, _, err := k.api.Decide(ctx, principal(ws), in)
	if err == nil {
		http.Redirect(w, r, fmt.Sprintf("/cases/%d?decided=%s#proposal-%d", caseID, action, proposalID), http.StatusSeeOther)
		return
	}
	ae := k.api.ErrorOf(ctx, err)
	msg := ae.Message
	switch ae.Code {
	case "stale_version", "proposal_not_pending", "decision_conflict":
		if !strings.Contains(ae.Message, "changed since you loaded it") {
			msg = "This proposal changed since you loaded it (" + ae.Message + ")."
		}
		msg += " Review the current version below and decide again."
	}
	d, derr := k.caseData(r, caseID)
	if derr != nil {
		k.errorPage(w, r, ae.Status, http.StatusText(ae.Status), msg)
		return
	}
	d.Error = msg
	k.render(w, ae.Status, "case", d)
}

// caseEvents: GET /cases/{id}/events → the case's live events as
// server-sent events (api.Server.StreamCaseEvents behind the session); the
// case page's script appends each step to the run's list as it commits.
func (k *Desk) caseEvents(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		http.Error(w, "no such case", http.StatusNotFound)
		return
	}
	if err := k.api.StreamCaseEvents(w, r, id); err != nil {
		ae := k.api.ErrorOf(r.Context(), err)
		http.Error(w, ae.Message, ae.Status)
	}
}
