package api

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/foiaflow/foiaflow/blobstore"
	"github.com/foiaflow/foiaflow/inbound"
	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

// Test secrets and identities.
const (
	testAdminKey   = "test-bootstrap-admin-key"
	testRawSecret  = "raw-webhook-secret"
	testMailgunKey = "mailgun-signing-key"
	testDomain     = "foia.test"
	testReviewer   = "reviewer@newsroom.test"
)

// testIDs mints Message-IDs and reply tokens under a test secret.
var testIDs = func() mail.IDs {
	ids, err := mail.NewIDs([]byte("test-mail-id-secret-0123456789abcdef"), testDomain)
	if err != nil {
		panic(err)
	}
	return ids
}()

// env is one isolated API: its own schema, queue prefix and server.
type env struct {
	t           *testing.T
	db          *storetest.DB
	st          *store.Store
	queues      jobs.Queues
	redis       asynq.RedisClientOpt
	client      *asynq.Client
	dispatch    *jobs.Dispatcher
	log         *zap.Logger
	srv         *Server
	ts          *httptest.Server
	reviewerKey string
	blobs       *blobstore.Dir
	proc        *inbound.Processor
}

// newEnv starts an API over a fresh schema; mods adjust its Config.
func newEnv(t *testing.T, mods ...func(*Config)) *env {
	t.Helper()
	db := storetest.New(t)
	e := &env{t: t, db: db, st: db.Store, queues: jobs.PrefixedQueues(storetest.QueuePrefix(t)),
		redis: asynq.RedisClientOpt{Addr: storetest.RedisAddr()}, log: zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))}
	e.client = asynq.NewClient(e.redis)
	t.Cleanup(func() { _ = e.client.Close() })
	e.dispatch = &jobs.Dispatcher{Client: e.client, Store: e.st, Log: e.log}
	blobs, err := blobstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e.blobs = blobs
	cfg := Config{BootstrapAdminKey: testAdminKey, InboundRawSecret: testRawSecret, MailgunSigningKey: testMailgunKey,
		InboundMaxBytes: 1 << 20, ReplayWindow: 5 * time.Minute, DecisionsPerMinute: 30, MailDomain: testDomain, MailIDs: testIDs,
		MaxAdjustments: 2, SpoolDir: blobs.TempDir()}
	for _, m := range mods {
		m(&cfg)
	}
	e.proc = &inbound.Processor{Store: e.st, Blobs: blobs, Matcher: inbound.CaseMatcher{Store: e.st, MailDomain: testDomain},
		Limits: mail.Limits{MaxBytes: max(cfg.MessageMaxBytes, 0)}, AttachmentMaxBytes: 64 << 10, Log: e.log,
		StartRun: func(ctx context.Context, tx *store.Tx, n store.NewRun) (store.Run, bool, error) {
			return jobs.StartRun(ctx, tx, e.queues, n)
		}}
	srv, err := New(cfg, Deps{Store: e.st, Queues: e.queues, Dispatch: e.dispatch, Redis: e.redis, Log: e.log, Blobs: blobs})
	if err != nil {
		t.Fatalf("api.New: %v", err)
	}
	t.Cleanup(srv.Close)
	e.srv = srv
	e.ts = httptest.NewServer(srv.Handler())
	t.Cleanup(e.ts.Close)
	plain, hash, err := NewAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.CreateAPIKey(context.Background(), testReviewer, RoleReviewer, hash); err != nil {
		t.Fatal(err)
	}
	e.reviewerKey = plain
	return e
}

// deps are the Deps newEnv built the server with, for tests that build a
// second server over the same schema (adjust the copy).
func (e *env) deps() Deps {
	return Deps{Store: e.st, Queues: e.queues, Dispatch: e.dispatch, Redis: e.redis, Log: e.log, Blobs: e.blobs}
}

// resp is a finished request.
type resp struct {
	t      *testing.T
	Status int
	Header http.Header
	Body   []byte
}

// decode unmarshals the body into v.
func (r resp) decode(v any) {
	r.t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// code returns the error code of an error body ("" if none).
func (r resp) code() string {
	var b errorBody
	_ = json.Unmarshal(r.Body, &b)
	return b.Error.Code
}

// expect fails unless the status (and, when code != "", the error code)
// match.
func (r resp) expect(status int, code string) resp {
	r.t.Helper()
	if r.Status != status || (code != "" && r.code() != code) {
		r.t.Fatalf("got %d %s, want %d %s", r.Status, r.Body, status, code)
	}
	return r
}

// req sends a request with key (Bearer, none when ""), a body (JSON-encoded
// unless it is []byte or string) and extra headers.
func (e *env) req(method, path, key string, body any, hdr ...string) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	rq, err := http.NewRequest(method, e.ts.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		rq.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		rq.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		rq.Header.Set(hdr[i], hdr[i+1])
	}
	return e.send(rq)
}

func (e *env) send(rq *http.Request) resp {
	e.t.Helper()
	res, err := http.DefaultClient.Do(rq)
	if err != nil {
		e.t.Fatalf("%s %s: %v", rq.Method, rq.URL, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{t: e.t, Status: res.StatusCode, Header: res.Header, Body: b}
}

// count returns a count(*) in the test schema.
func (e *env) count(sql string, args ...any) int64 {
	e.t.Helper()
	return e.db.Int(e.t, sql, args...)
}

// newCase creates a case directly in the store (agency records@springfield.gov).
func (e *env) newCase() (id int64, token string) {
	e.t.Helper()
	ctx := context.Background()
	token = storetest.Suffix(8)
	sent := time.Date(2026, 10, 1, 14, 0, 0, 0, time.UTC)
	_, err := e.st.InTx(ctx, func(tx *store.Tx) error {
		var err error
		id, err = tx.CreateCase(ctx, store.NewCase{AgencyName: "Springfield Police Department",
			AgencyEmail: "records@springfield.gov", Jurisdiction: "TX", Subject: "Use of force reports 2025",
			RequestedRecords: []string{"use of force reports"}, ReplyToken: token, SentAt: &sent})
		return err
	})
	if err != nil {
		e.t.Fatalf("create case: %v", err)
	}
	return id, token
}

// pendingProposal creates a run parked at a gate holding a PENDING_APPROVAL
// proposal with versions 1..versions (later ones ai_regenerated, adjustment
// count versions-1); it returns the proposal id.
func (e *env) pendingProposal(caseID int64, versions int) int64 {
	e.t.Helper()
	ctx := context.Background()
	var pid int64
	_, err := e.st.InTx(ctx, func(tx *store.Tx) error {
		run, _, err := tx.CreateRun(ctx, store.NewRun{CaseID: caseID, Trigger: workflow.TriggerAgencyReply,
			TriggerKey: "fixture:" + storetest.Suffix(6), StartNode: workflow.NodeLoadContext, State: json.RawMessage("{}")})
		if err != nil {
			return err
		}
		key := fmt.Sprintf("%d:%s:%s", caseID, run.TriggerKey, workflow.ActionSendRebuttal)
		for v := 1; v <= versions; v++ {
			src := workflow.SourceAIGenerated
			if v > 1 {
				src = workflow.SourceAIRegenerated
			}
			p, err := tx.UpsertProposal(ctx, workflow.ProposalUpsert{CaseID: caseID, RunID: run.ID, Key: key,
				Action: workflow.ActionSendRebuttal, Status: workflow.ProposalPending, Version: v, VersionSource: src,
				Subject: "RE: records request", BodyText: fmt.Sprintf("Dear officer,\n\nWe contest the denial.\nDraft %d.\n", v),
				AdjustmentCount: v - 1})
			if err != nil {
				return err
			}
			pid = p.ID
		}
		return nil
	})
	if err != nil {
		e.t.Fatalf("pending proposal: %v", err)
	}
	gate, _ := json.Marshal(workflow.GatePayload{Type: "HUMAN_APPROVAL", CaseID: caseID, ProposalID: pid, Version: versions})
	e.db.Exec(e.t, `UPDATE runs SET status = 'parked', next_node = 'gate_or_execute', step_seq = 6, interrupt = $2
		WHERE id = (SELECT run_id FROM proposals WHERE id = $1)`, pid, gate)
	return pid
}

// rawEmail builds a small RFC 5322 message.
func rawEmail(from, to, msgID, inReplyTo, body string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: RE: records request\r\nMessage-ID: %s\r\n", from, to, msgID)
	if inReplyTo != "" {
		fmt.Fprintf(&b, "In-Reply-To: %s\r\n", inReplyTo)
	}
	fmt.Fprintf(&b, "Date: Mon, 5 Oct 2026 10:00:00 -0500\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n", body)
	return []byte(b.String())
}

// parse runs the inbound:parse job of a stored delivery in the test (what
// a worker does) and dispatches the run it started.
func (e *env) parse(rawID int64) inbound.Result {
	e.t.Helper()
	res, rows, err := e.proc.Parse(context.Background(), rawID)
	if err != nil {
		e.t.Fatalf("parse raw message %d: %v", rawID, err)
	}
	if err := e.dispatch.Dispatch(context.Background(), rows); err != nil {
		e.t.Fatalf("dispatch: %v", err)
	}
	return res
}

// deliver posts raw through the signed webhook, expects 202 and parses it.
func (e *env) deliver(raw []byte) (inboundReceipt, inbound.Result) {
	e.t.Helper()
	var rc inboundReceipt
	e.postRaw(raw, testRawSecret, time.Now()).expect(http.StatusAccepted, "").decode(&rc)
	return rc, e.parse(rc.RawMessageID)
}

// postRaw delivers raw through the signed raw-MIME webhook signed at ts.
func (e *env) postRaw(raw []byte, secret string, ts time.Time) resp {
	e.t.Helper()
	rq, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/v1/inbound/email", bytes.NewReader(raw))
	rq.Header.Set("Content-Type", "message/rfc822")
	tsh, sig := mail.SignRaw([]byte(secret), ts, raw)
	rq.Header.Set(mail.HeaderTimestamp, tsh)
	rq.Header.Set(mail.HeaderSignature, sig)
	return e.send(rq)
}

// mailgunFields signs a Mailgun delivery of raw with token.
func mailgunFields(key, token string, ts time.Time, raw []byte) map[string]string {
	t := fmt.Sprint(ts.Unix())
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(t + token))
	return map[string]string{"body-mime": string(raw), "timestamp": t, "token": token, "signature": hex.EncodeToString(m.Sum(nil))}
}

// postMailgun posts fields as multipart/form-data (urlencoded when
// urlencoded is true).
func (e *env) postMailgun(fields map[string]string, urlencoded bool) resp {
	e.t.Helper()
	var body bytes.Buffer
	ct := "application/x-www-form-urlencoded"
	if urlencoded {
		v := url.Values{}
		for k, s := range fields {
			v.Set(k, s)
		}
		body.WriteString(v.Encode())
	} else {
		mw := multipart.NewWriter(&body)
		for k, s := range fields {
			_ = mw.WriteField(k, s)
		}
		_ = mw.Close()
		ct = mw.FormDataContentType()
	}
	rq, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/v1/inbound/email", &body)
	rq.Header.Set("Content-Type", ct)
	return e.send(rq)
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func mustRequest(t *testing.T, method, path string) *http.Request {
	t.Helper()
	return httptest.NewRequest(method, path, nil)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func sourceFile(name string) ([]byte, error) { return os.ReadFile(name) }
