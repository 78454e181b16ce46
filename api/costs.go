package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/foiaflow/foiaflow/analysis"
	"github.com/foiaflow/foiaflow/store"
)

// defaultCostDays is how far back GET /v1/costs looks without ?since=.
const defaultCostDays = 30

// CostModel is one model's share of a day: calls, tokens and cost at the
// price table's rate (Priced false: the model is not in LLM_PRICES, its
// cost is unknown and counted as 0).
type CostModel struct {
	Model            string `json:"model"`
	Calls            int64  `json:"calls"`
	PromptTokens     int64  `json:"prompt_tokens"`
	CompletionTokens int64  `json:"completion_tokens"`
	CostMicroCents   int64  `json:"cost_microcents"`
	Priced           bool   `json:"priced"`
}

// CostTotals are summed calls, tokens and cost. CostMicroCents is exact
// (millionths of a US cent); CostCents is it rounded to the nearest cent.
// UnpricedCalls were made with a model the price table does not know.
type CostTotals struct {
	Calls            int64 `json:"calls"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	CostMicroCents   int64 `json:"cost_microcents"`
	CostCents        int64 `json:"cost_cents"`
	UnpricedCalls    int64 `json:"unpriced_calls"`
}

// CostDay is one UTC day of LLM usage.
type CostDay struct {
	Day string `json:"day"` // YYYY-MM-DD, UTC
	CostTotals
	Models []CostModel `json:"models"`
}

// CostReport answers GET /v1/costs: LLM calls, tokens and cost per UTC day
// in [Since, Until), of one case or all (CaseID 0), with the total.
type CostReport struct {
	CaseID int64      `json:"case_id,omitempty"`
	Since  time.Time  `json:"since"`
	Until  time.Time  `json:"until"`
	Days   []CostDay  `json:"days"`
	Total  CostTotals `json:"total"`
}

// add counts a model row into t.
func (t *CostTotals) add(m CostModel) {
	t.Calls += m.Calls
	t.PromptTokens += m.PromptTokens
	t.CompletionTokens += m.CompletionTokens
	t.CostMicroCents += m.CostMicroCents
	if !m.Priced {
		t.UnpricedCalls += m.Calls
	}
	t.CostCents = (t.CostMicroCents + 500_000) / 1_000_000
}

// Costs sums the LLM calls recorded in llm_calls (analysis and drafting,
// one row per model call a step made) per UTC day in [since, until) for
// case caseID (0: every case), priced with the server's price table
// (LLM_PRICES). The one path of GET /v1/costs and the desk's case page.
// 404 case_not_found for an unknown case.
func (s *Server) Costs(ctx context.Context, caseID int64, since, until time.Time) (CostReport, error) {
	rep := CostReport{CaseID: caseID, Since: since.UTC(), Until: until.UTC(), Days: []CostDay{}}
	if caseID > 0 {
		if _, err := s.st.LoadCase(ctx, caseID); errors.Is(err, store.ErrNotFound) {
			return rep, errCaseNotFound
		} else if err != nil {
			return rep, fmt.Errorf("costs of case %d: %w", caseID, err)
		}
	}
	rows, err := s.st.LLMUsageByDay(ctx, caseID, since, until)
	if err != nil {
		return rep, fmt.Errorf("costs: %w", err)
	}
	for _, r := range rows {
		day := r.Day.UTC().Format(time.DateOnly)
		if n := len(rep.Days); n == 0 || rep.Days[n-1].Day != day {
			rep.Days = append(rep.Days, CostDay{Day: day, Models: []CostModel{}})
		}
		d := &rep.Days[len(rep.Days)-1]
		m := CostModel{Model: r.Model, Calls: r.Calls, PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens}
		var price analysis.Price
		price, m.Priced = s.prices.Lookup(r.Model)
		m.CostMicroCents = price.MicroCents(r.PromptTokens, r.CompletionTokens)
		d.Models = append(d.Models, m)
		d.add(m)
		rep.Total.add(m)
	}
	return rep, nil
}

// getCosts: GET /v1/costs?case_id=&since=&until= (dates YYYY-MM-DD or
// RFC 3339 times; since defaults to 30 days before today UTC, until to
// now) → CostReport.
func (s *Server) getCosts(w http.ResponseWriter, r *http.Request) error {
	caseID, err := queryInt(r, "case_id", 0, 1<<31-1)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	since, err := queryTime(r, "since", now.Truncate(24*time.Hour).AddDate(0, 0, -defaultCostDays))
	if err != nil {
		return err
	}
	until, err := queryTime(r, "until", now.Add(time.Second))
	if err != nil {
		return err
	}
	if !since.Before(until) {
		return apiErr(http.StatusBadRequest, "invalid_query", "since must be before until")
	}
	rep, err := s.Costs(r.Context(), caseID, since, until)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rep)
}

// queryTime parses an optional time query parameter: a UTC date
// (YYYY-MM-DD, its midnight) or an RFC 3339 time; def when absent; 400
// invalid_query otherwise.
func queryTime(r *http.Request, name string, def time.Time) (time.Time, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, apiErr(http.StatusBadRequest, "invalid_query", "%s must be a date (YYYY-MM-DD) or an RFC 3339 time", name)
}
