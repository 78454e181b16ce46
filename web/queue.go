package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/foiaflow/foiaflow/api"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// ageChoice is an option of the queue's age filter.
type ageChoice struct{ Value, Label string }

var ageChoices = []ageChoice{{"", "any time"}, {"1h", "1 hour"}, {"24h", "1 day"}, {"72h", "3 days"}, {"168h", "7 days"}}

type queueData struct {
	page
	Items       []store.QueueItem
	Facets      store.QueueFacets
	Filter      store.QueueFilter
	Age         string
	Ages        []ageChoice
	Filtered    bool
	Escalations int
}

// queue: GET /?agency=&jurisdiction=&action=&age= → the proposals pending
// approval, oldest first, and the count of open escalations.
func (k *Desk) queue(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := store.QueueFilter{Agency: q.Get("agency"), Action: q.Get("action"), Jurisdiction: q.Get("jurisdiction")}
	age := ""
	for _, c := range ageChoices {
		if c.Value != "" && c.Value == q.Get("age") {
			d, _ := time.ParseDuration(c.Value)
			f.CreatedTo, age = k.now().Add(-d), c.Value
		}
	}
	ctx := r.Context()
	items, err := k.st.ReviewQueue(ctx, f)
	if err != nil {
		k.fail(w, r, err)
		return
	}
	facets, err := k.st.ReviewQueueFacets(ctx)
	if err != nil {
		k.fail(w, r, err)
		return
	}
	esc, err := k.openEscalations(r)
	if err != nil {
		k.fail(w, r, err)
		return
	}
	k.render(w, http.StatusOK, "queue", queueData{page: page{Title: "Review queue", Session: sessionFrom(ctx), Nav: "queue"},
		Items: items, Facets: facets, Filter: f, Age: age, Ages: ageChoices, Escalations: len(esc.Items) + len(esc.Gated),
		Filtered: f.Agency != "" || f.Action != "" || f.Jurisdiction != "" || age != ""})
}

// escalationsData is the escalations page: the open escalations (a
// failed send, a bounce, follow-ups exhausted, a stuck run, …) and the
// proposals the agent itself escalated to a person (action ESCALATE).
type escalationsData struct {
	page
	CSRF  string
	Items []store.EscalationItem
	Gated []store.QueueItem
}

func (k *Desk) openEscalations(r *http.Request) (escalationsData, error) {
	d := escalationsData{CSRF: sessionFrom(r.Context()).CSRFToken}
	var err error
	if d.Items, err = k.st.ListEscalations(r.Context(), "open", 0, 1000); err != nil {
		return d, err
	}
	d.Gated, err = k.st.ReviewQueue(r.Context(), store.QueueFilter{Action: string(workflow.ActionEscalate)})
	return d, err
}

// escalations: GET /escalations → the open escalations with their
// reasons, and the proposals escalated to a person.
func (k *Desk) escalations(w http.ResponseWriter, r *http.Request) {
	d, err := k.openEscalations(r)
	if err != nil {
		k.fail(w, r, err)
		return
	}
	d.page = page{Title: "Escalations", Session: sessionFrom(r.Context()), Nav: "escalations"}
	switch r.URL.Query().Get("done") {
	case "assign":
		d.Notice = "Escalation assigned to you."
	case "resolve":
		d.Notice = "Escalation resolved."
	}
	k.render(w, http.StatusOK, "escalations", d)
}

// fail shows err as the JSON API would classify it.
func (k *Desk) fail(w http.ResponseWriter, r *http.Request, err error) {
	ae := k.api.ErrorOf(r.Context(), err)
	k.errorPage(w, r, ae.Status, http.StatusText(ae.Status), ae.Message)
}

// attachment: GET /records/attachments/{id} → the stored bytes, served by
// the API's records code.
func (k *Desk) attachment(w http.ResponseWriter, r *http.Request) { k.api.ServeAttachment(w, r) }

// rawMessage: GET /records/messages/{id}/raw → the message as received.
func (k *Desk) rawMessage(w http.ResponseWriter, r *http.Request) { k.api.ServeRawMessage(w, r) }

// changeEscalation: POST /escalations/{id}/{op} (op assign or resolve;
// csrf, resolution) → api.Server.ChangeEscalation with the session's
// reviewer (assign: to them), then back to the escalations page.
func (k *Desk) changeEscalation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	op := r.PathValue("op")
	if err != nil || (op != "assign" && op != "resolve") {
		k.errorPage(w, r, http.StatusNotFound, "Not found", "No such escalation action.")
		return
	}
	ws := sessionFrom(ctx)
	if !mayDecide(ws.Role) {
		k.errorPage(w, r, http.StatusForbidden, "Refused", "Your role may not change escalations.")
		return
	}
	req := api.EscalationChange{Resolution: strings.TrimSpace(r.PostFormValue("resolution"))}
	if op == "assign" {
		req = api.EscalationChange{Assignee: ws.Name}
	}
	if _, err := k.api.ChangeEscalation(ctx, principal(ws), id, op, req); err != nil {
		k.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/escalations?done="+op, http.StatusSeeOther)
}
