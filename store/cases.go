package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foiaflow/foiaflow/workflow"
)

// Agency is a public body that receives requests.
type Agency struct {
	ID               int64   `db:"id" json:"id"`
	Name             string  `db:"name" json:"name"`
	Email            string  `db:"email" json:"email"`
	EmailDomain      string  `db:"email_domain" json:"email_domain"`
	PortalURL        string  `db:"portal_url" json:"portal_url"`
	JurisdictionCode *string `db:"jurisdiction_code" json:"jurisdiction_code"`
	Timezone         string  `db:"timezone" json:"timezone"`
}

// NewCase is what CreateCase stores.
type NewCase struct {
	AgencyName       string
	AgencyEmail      string
	PortalURL        string
	Jurisdiction     string // abbrev; must exist in jurisdictions
	Timezone         string // agency IANA zone; default America/New_York
	Subject          string
	RequestedRecords []string
	AutopilotMode    workflow.AutopilotMode
	RequesterName    string
	ReplyToken       string // unique per case; ignored when ReplyTokenOf is set
	// ReplyTokenOf derives the reply token from the new case's id
	// (mail.IDs.ReplyToken); the id is drawn before the insert so the row
	// is written once, complete.
	ReplyTokenOf func(caseID int64) string
	SentAt       *time.Time
	Status       string // default awaiting_response
	// DueAt and NextFollowupAt come from the statutory clock when the
	// request already went out (nil otherwise).
	DueAt          *time.Time
	NextFollowupAt *time.Time
}

// CreateCase upserts the agency (by name and email) and inserts the case.
// Returns ErrConflict for an unknown jurisdiction or a duplicate token.
func (t *Tx) CreateCase(ctx context.Context, n NewCase) (int64, error) {
	domain := ""
	if i := strings.LastIndex(n.AgencyEmail, "@"); i >= 0 {
		domain = strings.ToLower(n.AgencyEmail[i+1:])
	}
	tz := n.Timezone
	if tz == "" {
		tz = "America/New_York"
	}
	var jur *string
	if n.Jurisdiction != "" {
		j := strings.ToUpper(n.Jurisdiction)
		jur = &j
	}
	var agencyID int64
	err := t.queryRow(ctx, `
		INSERT INTO agencies (name, email, email_domain, portal_url, jurisdiction_code, timezone)
		VALUES ($1, lower($2), $3, $4, $5, $6)
		ON CONFLICT (name, email) DO UPDATE SET portal_url = excluded.portal_url,
		    jurisdiction_code = excluded.jurisdiction_code, timezone = excluded.timezone
		RETURNING id`, n.AgencyName, n.AgencyEmail, domain, n.PortalURL, jur, tz).Scan(&agencyID)
	if err != nil {
		return 0, fmt.Errorf("upsert agency %q: %w", n.AgencyName, translate(err))
	}
	records, _ := json.Marshal(orEmpty(n.RequestedRecords))
	scope := make([]workflow.ScopeItem, 0, len(n.RequestedRecords))
	for _, r := range n.RequestedRecords {
		scope = append(scope, workflow.ScopeItem{Item: r, Status: workflow.ScopePending})
	}
	scopeJSON, _ := json.Marshal(scope)
	status := n.Status
	if status == "" {
		status = workflow.CaseAwaitingResponse
	}
	mode := n.AutopilotMode
	if mode == "" {
		mode = workflow.AutopilotSupervised
	}
	var id int64
	token := n.ReplyToken
	if n.ReplyTokenOf != nil {
		if err := t.queryRow(ctx, `SELECT nextval(pg_get_serial_sequence('cases', 'id'))`).Scan(&id); err != nil {
			return 0, fmt.Errorf("case id: %w", translate(err))
		}
		token = n.ReplyTokenOf(id)
	}
	err = t.queryRow(ctx, `
		INSERT INTO cases (id, agency_id, jurisdiction_code, subject, requested_records, scope_items, autopilot_mode,
		                   status, reply_token, portal_url, requester_name, sent_at, due_at, next_followup_at)
		OVERRIDING SYSTEM VALUE
		VALUES (COALESCE($14, nextval(pg_get_serial_sequence('cases', 'id'))),$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)
		RETURNING id`,
		agencyID, jur, n.Subject, records, scopeJSON, mode, status, token, n.PortalURL, n.RequesterName, n.SentAt,
		n.DueAt, n.NextFollowupAt, nilIfZero(id)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insert case: %w", translate(err))
	}
	return id, nil
}

func nilIfZero(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// LoadCase loads the graph's view of a case (workflow.CaseReader). Inside
// a step whose case was read with its lock (WithCase), the first call for
// that case returns that read instead of another round trip.
func (s *Store) LoadCase(ctx context.Context, caseID int64) (workflow.CaseRecord, error) {
	if p, ok := ctx.Value(prefetchedKey{}).(*prefetchedCase); ok && p.rec.CaseID == caseID && p.used.CompareAndSwap(false, true) {
		return p.rec, nil
	}
	return scanCaseRecord(s.pool.QueryRow(ctx, caseRecordSQL, caseID), caseID)
}

// prefetchedCase is a case record read under the case lock, answered once.
type prefetchedCase struct {
	rec  workflow.CaseRecord
	used atomic.Bool
}

type prefetchedKey struct{}

// WithCase returns ctx carrying c, read under the case's lock in the same
// round trip as the lock (TryLockCaseRun): the next LoadCase of c.CaseID
// through the returned context answers with c, later ones read again.
func WithCase(ctx context.Context, c workflow.CaseRecord) context.Context {
	return context.WithValue(ctx, prefetchedKey{}, &prefetchedCase{rec: c})
}

// caseRecordSQL reads the graph's view of case $1 (scanCaseRecord).
const caseRecordSQL = `
		SELECT c.id, a.name, a.email, c.jurisdiction_code, j.statute_citation, c.subject, c.requested_records, c.scope_items,
		       c.constraints, c.tracking_number, c.portal_url, c.requester_name, c.sent_at, c.fee_cents, c.fee_currency,
		       c.autopilot_mode, c.status, c.paused, c.reply_token, a.timezone, c.due_at, c.next_followup_at,
		       c.followup_count, c.estimated_completion, c.tolled_since, c.tolled_days,
		       COALESCE((SELECT m.message_id FROM messages m WHERE m.case_id = c.id AND m.direction = 'inbound'
		                   AND m.auto_kind = '' AND length(m.message_id) <= 998
		                 ORDER BY m.received_at DESC, m.id DESC LIMIT 1), ''),
		       COALESCE((SELECT array_agg(m.message_id ORDER BY m.received_at, m.id) FROM messages m
		                 WHERE m.case_id = c.id AND length(m.message_id) <= 998), '{}'),
		       j.appeal_kind, j.appeal_body, j.appeal_citation, j.appeal_file_days, j.appeal_file_business_days,
		       j.appeal_decide_days, j.appeal_decide_business_days, c.denied_at, c.appeal_deadline, c.appealed_at
		FROM cases c JOIN agencies a ON a.id = c.agency_id
		LEFT JOIN jurisdictions j ON j.code = c.jurisdiction_code
		WHERE c.id = $1`

// scanCaseRecord scans the row of caseRecordSQL.
func scanCaseRecord(row pgx.Row, caseID int64) (workflow.CaseRecord, error) {
	var c workflow.CaseRecord
	var records, scope []byte
	var constraints []string
	var jur, statute, appealKind *string
	var est *time.Time
	var fileDays, decideDays *int
	var fileBusiness, decideBusiness *bool
	var appealBody, appealCitation *string
	err := row.Scan(
		&c.CaseID, &c.AgencyName, &c.AgencyEmail, &jur, &statute, &c.Subject, &records, &scope,
		&constraints, &c.TrackingNumber, &c.PortalURL, &c.RequesterName, &c.SentAt, &c.FeeCents, &c.FeeCurrency,
		&c.AutopilotMode, &c.Status, &c.Paused, &c.ReplyToken, &c.AgencyTimezone, &c.DueAt, &c.NextFollowupAt,
		&c.FollowupCount, &est, &c.TolledSince, &c.TolledDays, &c.LastInboundMessageID, &c.References,
		&appealKind, &appealBody, &appealCitation, &fileDays, &fileBusiness, &decideDays, &decideBusiness,
		&c.DeniedAt, &c.AppealDeadline, &c.AppealedAt)
	if err != nil {
		return c, fmt.Errorf("case %d: %w", caseID, translate(err))
	}
	if jur != nil {
		c.Jurisdiction = *jur
	}
	if statute != nil {
		c.Statute = *statute
	}
	c.Appeal = appealTerms(appealKind, appealBody, appealCitation, fileDays, fileBusiness, decideDays, decideBusiness)
	c.EstimatedCompletion = est
	_ = json.Unmarshal(records, &c.RequestedRecords)
	_ = json.Unmarshal(scope, &c.ScopeItems)
	for _, k := range constraints {
		c.Constraints = append(c.Constraints, workflow.Constraint(k))
	}
	return c, nil
}

// appealTerms builds the jurisdiction's appeal from its nullable columns (a
// case without a jurisdiction has AppealNone).
func appealTerms(kind, body, citation *string, fileDays *int, fileBusiness *bool, decideDays *int, decideBusiness *bool) workflow.AppealTerms {
	t := workflow.AppealTerms{Kind: workflow.AppealNone}
	if kind == nil {
		return t
	}
	t.Kind, t.Body, t.Citation = workflow.AppealKind(*kind), *body, *citation
	if fileDays != nil {
		t.FileDays, t.FileBusinessDays = *fileDays, *fileBusiness
	}
	if decideDays != nil {
		t.DecideDays, t.DecideBusinessDays = *decideDays, *decideBusiness
	}
	return t
}

// UpdateCaseFacts persists what update_constraints learned. Empty strings and
// nil pointers leave the stored value unchanged. Queued (see Tx).
func (t *Tx) UpdateCaseFacts(ctx context.Context, caseID int64, f workflow.CaseFacts) error {
	cons := make([]string, 0, len(f.Constraints))
	for _, c := range f.Constraints {
		cons = append(cons, string(c))
	}
	scope, err := json.Marshal(f.ScopeItems)
	if err != nil {
		return err
	}
	if f.ScopeItems == nil {
		scope = nil
	}
	t.later(fmt.Sprintf("update facts of case %d", caseID), `
		UPDATE cases SET constraints = $2, scope_items = COALESCE($3, scope_items),
		    tracking_number = COALESCE(NULLIF($4, ''), tracking_number),
		    portal_url = COALESCE(NULLIF($5, ''), portal_url),
		    fee_cents = COALESCE($6, fee_cents),
		    fee_currency = CASE WHEN $6::bigint IS NULL THEN fee_currency ELSE $10 END,
		    estimated_completion = COALESCE($7::date, estimated_completion),
		    denied_at = COALESCE($8, denied_at), appeal_deadline = COALESCE($9, appeal_deadline),
		    updated_at = now()
		WHERE id = $1`, caseID, cons, scope, f.TrackingNumber, f.PortalURL, f.FeeCents, f.EstimatedCompletion,
		f.DeniedAt, f.AppealDeadline, workflow.CurrencyOrUSD(f.FeeCurrency))
	return nil
}

// SetCaseStatus sets the case status. Leaving needs_review/awaiting_requester
// ends tolling: the tolled days are added up and tolled_since cleared.
// Queued (see Tx).
func (t *Tx) SetCaseStatus(ctx context.Context, caseID int64, status string) error {
	t.later(fmt.Sprintf("set status of case %d", caseID), `
		UPDATE cases SET status = $2, updated_at = now(),
		    tolled_days = CASE WHEN tolled_since IS NOT NULL AND $2 NOT IN ('needs_review','awaiting_requester')
		                       THEN tolled_days + floor(extract(epoch FROM now() - tolled_since) / 86400)::int ELSE tolled_days END,
		    tolled_since = CASE WHEN $2 IN ('needs_review','awaiting_requester') THEN tolled_since END,
		    closed_at = CASE WHEN $2 IN ('completed','closed_no_records','withdrawn') THEN now() END
		WHERE id = $1`, caseID, status)
	return nil
}

// StartTolling stops the statutory clock at at unless already stopped
// (queued, see Tx).
func (t *Tx) StartTolling(ctx context.Context, caseID int64, at time.Time) error {
	t.later(fmt.Sprintf("start tolling case %d", caseID), `UPDATE cases SET tolled_since = COALESCE(tolled_since, $2) WHERE id = $1`, caseID, at)
	return nil
}

// SaveSchedule writes the clock state of commit_state (absolute values;
// queued, see Tx).
func (t *Tx) SaveSchedule(ctx context.Context, caseID int64, s workflow.CaseSchedule) error {
	t.later(fmt.Sprintf("save schedule of case %d", caseID), `
		UPDATE cases SET status = $2, sent_at = $3, due_at = $4, next_followup_at = $5, followup_count = $6,
		    last_followup_at = COALESCE($7, last_followup_at), tolled_since = $8, tolled_days = $9,
		    closed_at = CASE WHEN $10 THEN COALESCE(closed_at, now()) END,
		    appealed_at = COALESCE($11, appealed_at), updated_at = now()
		WHERE id = $1`, caseID, s.Status, s.SentAt, s.DueAt, s.NextFollowupAt, s.FollowupCount, s.LastFollowupAt,
		s.TolledSince, s.TolledDays, s.Closed, s.AppealedAt)
	return nil
}

// CaseByToken returns the case whose reply token is token and whether
// from may steer it (SenderAllowed), in one round trip; ErrNotFound.
func (s *Store) CaseByToken(ctx context.Context, token, from string) (int64, bool, error) {
	var id int64
	var allowed bool
	err := s.pool.QueryRow(ctx, `SELECT c.id, `+senderAllowedExpr("$2::text")+`
		FROM cases c JOIN agencies a ON a.id = c.agency_id WHERE c.reply_token = $1`, token, from).Scan(&id, &allowed)
	return id, allowed, translate(err)
}

// CaseIDByOutboundMessageID finds the case of one of our sent Message-IDs
// (In-Reply-To/References matching); ErrNotFound.
func (s *Store) CaseIDByOutboundMessageID(ctx context.Context, messageIDs []string) (int64, error) {
	hashes := make([]string, len(messageIDs))
	for i, m := range messageIDs {
		hashes[i] = MessageIDHash(m)
	}
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT case_id FROM email_sends WHERE message_id = ANY($1)
		UNION ALL SELECT case_id FROM messages WHERE direction = 'outbound' AND message_id_hash = ANY($2) AND case_id IS NOT NULL
		LIMIT 1`, messageIDs, hashes).Scan(&id)
	return id, translate(err)
}

// DueFollowup is a case whose follow-up date has passed.
type DueFollowup struct {
	CaseID         int64     `db:"id"`
	NextFollowupAt time.Time `db:"next_followup_at"`
	FollowupCount  int       `db:"followup_count"`
}

// DueFollowups lists up to limit cases awaiting a response whose follow-up
// date is at or before now.
func (s *Store) DueFollowups(ctx context.Context, now time.Time, limit int) ([]DueFollowup, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, next_followup_at, followup_count FROM cases
		WHERE status = 'awaiting_response' AND NOT paused AND next_followup_at <= $1
		  AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.case_id = cases.id AND r.status IN ('queued','running','parked'))
		ORDER BY next_followup_at LIMIT $2`, now, limit)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[DueFollowup])
	return out, translate(err)
}
