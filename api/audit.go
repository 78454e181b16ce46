package api

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
)

// defaultAuditDays is how far back GET /v1/audit looks without ?since=.
const defaultAuditDays = 30

// AuditEntry is one line of the audit log (store.AuditEntry) with, for a
// sent email, the outbox task that sent it.
type AuditEntry struct {
	store.AuditEntry
	TaskID string `json:"task_id,omitempty"` // email_sent: the outbox/asynq task id (email:<execution key>)
}

// getAudit: GET /v1/audit?since=&limit=&before= (admin) → {"entries":
// newest first, "next_cursor": pass as ?before= for the next page, null on
// the last}. since is a date (YYYY-MM-DD) or RFC 3339 time, default 30
// days back; limit 1..1000, default 100.
func (s *Server) getAudit(w http.ResponseWriter, r *http.Request) error {
	now := s.now().UTC()
	since, err := queryTime(r, "since", now.Truncate(24*time.Hour).AddDate(0, 0, -defaultAuditDays))
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", 100, 1000)
	if err != nil {
		return err
	}
	if limit == 0 {
		return apiErr(http.StatusBadRequest, "invalid_query", "limit must be in [1, 1000]")
	}
	var before *store.AuditCursor
	if b := r.URL.Query().Get("before"); b != "" {
		c, err := decodeAuditCursor(b)
		if err != nil {
			return apiErr(http.StatusBadRequest, "invalid_cursor", "before is not a cursor this API returned")
		}
		before = &c
	}
	rows, err := s.st.AuditLog(r.Context(), since, before, int(limit))
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	out := make([]AuditEntry, len(rows))
	for i, e := range rows {
		out[i] = AuditEntry{AuditEntry: e}
		if e.Kind == store.AuditEmailSent {
			var d struct {
				ExecutionKey string `json:"execution_key"`
			}
			if err := json.Unmarshal(e.Detail, &d); err == nil && d.ExecutionKey != "" {
				out[i].TaskID = jobs.EmailTaskID(d.ExecutionKey)
			}
		}
	}
	var next *string
	if len(rows) == int(limit) {
		last := rows[len(rows)-1]
		c := encodeAuditCursor(store.AuditCursor{At: last.At, Kind: last.Kind, ID: last.ID})
		next = &c
	}
	return writeJSON(w, http.StatusOK, map[string]any{"entries": out, "next_cursor": next})
}

// encodeAuditCursor makes the opaque cursor of an audit page:
// base64url("<unix µs>:<kind>:<id>").
func encodeAuditCursor(c store.AuditCursor) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d:%s:%d", c.At.UnixMicro(), c.Kind, c.ID))
}

func decodeAuditCursor(s string) (store.AuditCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return store.AuditCursor{}, err
	}
	parts := strings.Split(string(b), ":")
	if len(parts) != 3 || parts[1] == "" {
		return store.AuditCursor{}, fmt.Errorf("cursor %q", b)
	}
	us, err1 := strconv.ParseInt(parts[0], 10, 64)
	id, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil {
		return store.AuditCursor{}, fmt.Errorf("cursor %q", b)
	}
	return store.AuditCursor{At: time.UnixMicro(us).UTC(), Kind: parts[1], ID: id}, nil
}
