package api

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/foiaflow/foiaflow/blobstore"
	"github.com/foiaflow/foiaflow/inbound"
	"github.com/foiaflow/foiaflow/store"
)

// AttachmentView is a stored attachment with its download path.
type AttachmentView struct {
	store.Attachment
	DownloadURL string `json:"download_url"` // GET it with the same API key
}

// MessageView is a case's message with its attachments.
type MessageView struct {
	store.Message
	StoredAttachments []AttachmentView `json:"stored_attachments"`
	RawURL            string           `json:"raw_url,omitempty"` // the message as received (.eml)
}

// CaseMessages is the answer of GET /v1/cases/{id}/messages.
type CaseMessages struct {
	CaseID         int64                 `json:"case_id"`
	Records        store.RecordCounts    `json:"records"`
	Messages       []MessageView         `json:"messages"`        // oldest first
	RetrievalTasks []store.RetrievalTask `json:"retrieval_tasks"` // download links a person must fetch
}

// caseMessages: GET /v1/cases/{id}/messages → the case's messages (both
// directions, oldest first) with their stored attachments and download
// paths, the record counts and the pending retrieval tasks. 404
// case_not_found.
func (s *Server) caseMessages(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	out, err := s.CaseMessages(r.Context(), id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// CaseMessages loads a case's messages (both directions, oldest first)
// with their stored attachments and download paths, the record counts and
// the pending retrieval tasks; 404 case_not_found.
func (s *Server) CaseMessages(ctx context.Context, id int64) (CaseMessages, error) {
	if _, err := s.st.LoadCase(ctx, id); errors.Is(err, store.ErrNotFound) {
		return CaseMessages{}, errCaseNotFound
	} else if err != nil {
		return CaseMessages{}, fmt.Errorf("case messages: %w", err)
	}
	msgs, err := s.st.MessagesOfCase(ctx, id)
	if err != nil {
		return CaseMessages{}, fmt.Errorf("case messages: %w", err)
	}
	atts, err := s.st.AttachmentsOfCase(ctx, id)
	if err != nil {
		return CaseMessages{}, fmt.Errorf("case messages: %w", err)
	}
	byMsg := map[int64][]AttachmentView{}
	for _, a := range atts {
		byMsg[a.MessageID] = append(byMsg[a.MessageID], AttachmentView{Attachment: a, DownloadURL: fmt.Sprintf("/v1/attachments/%d", a.ID)})
	}
	out := CaseMessages{CaseID: id, Messages: []MessageView{}}
	for _, m := range msgs {
		v := MessageView{Message: m, StoredAttachments: byMsg[m.ID]}
		if v.StoredAttachments == nil {
			v.StoredAttachments = []AttachmentView{}
		}
		if m.RawMessageID != nil {
			v.RawURL = fmt.Sprintf("/v1/messages/%d/raw", m.ID)
		}
		out.Messages = append(out.Messages, v)
	}
	if out.Records, err = s.st.RecordCountsOfCase(ctx, id); err != nil {
		return out, fmt.Errorf("case messages: %w", err)
	}
	if out.RetrievalTasks, err = s.st.RetrievalTasksOfCase(ctx, id); err != nil {
		return out, fmt.Errorf("case messages: %w", err)
	}
	if out.RetrievalTasks == nil {
		out.RetrievalTasks = []store.RetrievalTask{}
	}
	return out, nil
}

// timelineBody is the answer of GET /v1/cases/{id}/timeline.
type timelineBody struct {
	CaseID  int64                 `json:"case_id"`
	Records store.RecordCounts    `json:"records"`
	Events  []store.ActivityEntry `json:"events"` // oldest first, the newest 500
}

// caseTimeline: GET /v1/cases/{id}/timeline → what happened on the case
// (messages received, automatic mail, records delivered, proposals, …)
// and the counts of records received. 404 case_not_found.
func (s *Server) caseTimeline(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	if _, err := s.st.LoadCase(ctx, id); errors.Is(err, store.ErrNotFound) {
		return errCaseNotFound
	} else if err != nil {
		return fmt.Errorf("case timeline: %w", err)
	}
	out := timelineBody{CaseID: id}
	if out.Records, err = s.st.RecordCountsOfCase(ctx, id); err != nil {
		return fmt.Errorf("case timeline: %w", err)
	}
	if out.Events, err = s.st.ActivityOfCase(ctx, id, 500); err != nil {
		return fmt.Errorf("case timeline: %w", err)
	}
	if out.Events == nil {
		out.Events = []store.ActivityEntry{}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// inlineTypes may be shown in the browser; everything else downloads.
var inlineTypes = map[string]bool{"application/pdf": true, "image/png": true, "image/jpeg": true, "image/gif": true,
	"text/plain": true}

// getAttachment: GET /v1/attachments/{id} → the attachment's bytes from the
// message store, with its media type, a Content-Disposition built from a
// sanitized file name (no header injection), an ETag of its SHA-256, and
// range requests (http.ServeContent). 404 attachment_not_found, 503
// message_store_unavailable.
func (s *Server) getAttachment(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	a, err := s.st.GetAttachment(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return apiErr(http.StatusNotFound, "attachment_not_found", "no attachment %d", id)
	}
	if err != nil {
		return fmt.Errorf("attachment %d: %w", id, err)
	}
	ct := safeMediaType(a.ContentType)
	disp := "attachment"
	if inlineTypes[ct] {
		disp = "inline"
	}
	return s.serveBlob(w, r, a.SHA256, ct, disp, downloadName(a.Filename, fmt.Sprintf("attachment-%d", a.ID)))
}

// getRawMessage: GET /v1/messages/{id}/raw → the message exactly as it was
// received (message/rfc822, as a download). 404 raw_not_found.
func (s *Server) getRawMessage(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	m, err := s.st.GetMessage(r.Context(), id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("raw message %d: %w", id, err)
	}
	if err != nil || m.RawMessageID == nil {
		return apiErr(http.StatusNotFound, "raw_not_found", "message %d has no stored raw bytes", id)
	}
	raw, err := s.st.GetRawMessage(r.Context(), *m.RawMessageID)
	if err != nil {
		return fmt.Errorf("raw message %d: %w", id, err)
	}
	return s.serveBlob(w, r, raw.SHA256, "message/rfc822", "attachment", fmt.Sprintf("message-%d.eml", id))
}

// serveBlob streams object digest with range support.
func (s *Server) serveBlob(w http.ResponseWriter, r *http.Request, digest, contentType, disposition, filename string) error {
	obj, err := s.blobs.Open(r.Context(), digest)
	if err != nil {
		if errors.Is(err, blobstore.ErrNotFound) {
			s.log.Error("stored object missing from the message store: " + digest)
		}
		return apiErr(http.StatusServiceUnavailable, "message_store_unavailable", "the message store could not serve this object; retry later")
	}
	defer obj.Close()
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": filename}))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("ETag", `"`+digest+`"`)
	h.Set("Cache-Control", "private, max-age=0, must-revalidate")
	http.ServeContent(w, r, "", zeroTime, obj)
	return nil
}

// safeMediaType returns ct when it is a well-formed type/subtype without
// parameters, else application/octet-stream: a stored value never reaches
// a header unchecked.
func safeMediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !strings.Contains(mt, "/") || mt == "text/html" || strings.Contains(mt, "xml") ||
		strings.Contains(mt, "javascript") {
		return "application/octet-stream"
	}
	return mt
}

// downloadName makes a stored attachment file name safe for
// Content-Disposition: the base name only, control characters, quotes,
// backslashes and separators dropped, at most 150 characters; fallback
// when nothing is left. mime.FormatMediaType then quotes it (RFC 2231 for
// non-ASCII).
func downloadName(name, fallback string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '"' || r == '/' || r == '\\' || r == ';' || r == unicode.ReplacementChar {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(strings.Trim(name, "."))
	if rs := []rune(name); len(rs) > 150 {
		name = string(rs[:150])
	}
	if name == "" {
		return fallback
	}
	return name
}

// reanalyzeResult is the answer of POST /v1/admin/messages/{id}/reanalyze.
type reanalyzeResult struct {
	ReanalysisID int64  `json:"reanalysis_id"`
	MessageID    int64  `json:"message_id"`
	TaskID       string `json:"task_id"`
}

// reanalyzeMessage: POST /v1/admin/messages/{id}/reanalyze (admin) → 202
// (jobs.UseCases.RequestReanalysis): the stored raw message is parsed and
// analysed again by the worker as a new analysis (GET
// /v1/admin/reanalyses/{id}); no run, nothing sent, the case unchanged. 404
// message_not_found, 409 not_reanalyzable (no stored raw bytes or no case).
func (s *Server) reanalyzeMessage(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	m, err := s.st.GetMessage(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return apiErr(http.StatusNotFound, "message_not_found", "no message %d", id)
	}
	if err != nil {
		return fmt.Errorf("reanalyze %d: %w", id, err)
	}
	if m.RawMessageID == nil || m.CaseID == nil || m.Direction != "inbound" {
		return apiErr(http.StatusConflict, "not_reanalyzable", "message %d has no stored raw bytes or no case (%v)", id, inbound.ErrCannotReanalyze)
	}
	re, err := s.uc.RequestReanalysis(ctx, id, principalFrom(ctx).Name)
	if err != nil {
		return err
	}
	res := reanalyzeResult{ReanalysisID: re.ID, MessageID: id, TaskID: re.TaskID}
	w.Header().Set("Location", fmt.Sprintf("/v1/admin/reanalyses/%d", res.ReanalysisID))
	writeJSON(w, http.StatusAccepted, res)
	return nil
}

// getReanalysis: GET /v1/admin/reanalyses/{id} (admin) → its status and,
// once done, the new analysis. 404 reanalysis_not_found.
func (s *Server) getReanalysis(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	re, err := s.st.GetReanalysis(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return apiErr(http.StatusNotFound, "reanalysis_not_found", "no reanalysis %d", id)
	}
	if err != nil {
		return fmt.Errorf("reanalysis %d: %w", id, err)
	}
	writeJSON(w, http.StatusOK, re)
	return nil
}

// zeroTime leaves Last-Modified out: the ETag (SHA-256) validates.
var zeroTime time.Time
