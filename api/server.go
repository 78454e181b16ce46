package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
	"github.com/hibiken/asynqmon"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/analysis"
	"github.com/foiaflow/foiaflow/blobstore"
	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// Config is the API's share of the process configuration (app.Config).
type Config struct {
	// BootstrapAdminKey, when set, is accepted as an admin key named
	// "bootstrap-admin" without a database row (dev; API_BOOTSTRAP_ADMIN_KEY).
	BootstrapAdminKey string
	// InboundRawSecret signs the raw-MIME webhook (INBOUND_RAW_SECRET);
	// empty rejects every raw delivery.
	InboundRawSecret string
	// MailgunSigningKey verifies Mailgun's inbound form (MAILGUN_SIGNING_KEY);
	// empty rejects every Mailgun delivery.
	MailgunSigningKey string
	// InboundMaxBytes bounds an inbound webhook body (INBOUND_MAX_BYTES);
	// a larger body is refused with 413 before it is stored.
	InboundMaxBytes int64
	// MessageMaxBytes is the largest message parsed (MESSAGE_MAX_BYTES); a
	// larger one (up to InboundMaxBytes) is stored and flagged oversize.
	MessageMaxBytes int64
	// SpoolDir holds webhook bodies while their signature is checked
	// (DATA_DIR/tmp); empty means os.TempDir.
	SpoolDir string
	// ReplayWindow is how far a webhook timestamp may be from now
	// (WEBHOOK_REPLAY_WINDOW).
	ReplayWindow time.Duration
	// DecisionsPerMinute is the per-case decision rate limit
	// (DECISIONS_PER_CASE_PER_MINUTE).
	DecisionsPerMinute int
	// MailDomain is the domain of per-case reply addresses (MAIL_DOMAIN).
	MailDomain string
	// MailIDs mints the reply token of a new case (MAIL_ID_SECRET).
	MailIDs mail.IDs
	// MaxAdjustments caps ADJUST decisions per proposal (MAX_ADJUSTMENTS).
	MaxAdjustments int
	// AuthFailuresPerMinute is how many failed authentications a source
	// address, or a presented key, may have per minute before its requests
	// are answered 429 (AUTH_FAILURES_PER_MINUTE); 0 means 10.
	AuthFailuresPerMinute int
	// Prices is the per-model price table of the cost report (LLM_PRICES);
	// nil means analysis.DefaultPrices.
	Prices analysis.Prices
}

// Deps are the API's collaborators, built in cmd/.
type Deps struct {
	Store    *store.Store
	Queues   jobs.Queues
	Dispatch *jobs.Dispatcher
	Redis    asynq.RedisClientOpt
	Log      *zap.Logger
	// Now is the clock (UTC); nil means time.Now.
	Now func() time.Time
	// Blobs is the message store (raw messages and attachments).
	Blobs blobstore.Store
	// Planner computes the due date and first follow-up of a case created
	// with a sent date (DESIGN.md "Clock"); nil leaves them to the first run.
	Planner workflow.Planner
}

// Server serves the API. Build it with New and release it with Close.
type Server struct {
	cfg       Config
	st        *store.Store
	blobs     blobstore.Store
	uc        *jobs.UseCases
	planner   workflow.Planner
	log       *zap.Logger
	now       func() time.Time
	redis     redis.UniversalClient
	inspector *asynq.Inspector
	monitor   *asynqmon.HTTPHandler
	registry  *prometheus.Registry
	http      *httpMetrics
	throttle  *authThrottle
	mux       *http.ServeMux
	handler   http.Handler
	pages     http.Handler // the reviewer desk (SetPages); nil: none
	events    *eventHub
	prices    analysis.Prices
}

// New builds the server and its routes. It opens Redis clients (readiness,
// queue metrics, asynqmon) that Close releases.
func New(cfg Config, d Deps) (*Server, error) {
	if d.Store == nil || d.Dispatch == nil || d.Log == nil || d.Blobs == nil {
		return nil, errors.New("api: Store, Dispatch, Blobs and Log are required")
	}
	if cfg.MessageMaxBytes <= 0 {
		cfg.MessageMaxBytes = cfg.InboundMaxBytes
	}
	if cfg.DecisionsPerMinute <= 0 || cfg.InboundMaxBytes <= 0 || cfg.MailDomain == "" || cfg.MailIDs.IsZero() {
		return nil, errors.New("api: DecisionsPerMinute, InboundMaxBytes, MailDomain and MailIDs are required")
	}
	now := d.Now
	if now == nil {
		now = time.Now
	}
	rc, ok := d.Redis.MakeRedisClient().(redis.UniversalClient)
	if !ok {
		return nil, errors.New("api: unsupported redis client")
	}
	s := &Server{cfg: cfg, st: d.Store, blobs: d.Blobs, planner: d.Planner, log: d.Log, now: now, redis: rc,
		inspector: asynq.NewInspector(d.Redis),
		monitor:   asynqmon.New(asynqmon.Options{RootPath: adminQueuesPath, RedisConnOpt: d.Redis}),
		registry:  prometheus.NewRegistry(), mux: http.NewServeMux(), events: newEventHub(d.Store, d.Log)}
	s.uc = &jobs.UseCases{Store: d.Store, Queues: d.Queues, Dispatch: d.Dispatch}
	limit := cfg.AuthFailuresPerMinute
	if limit <= 0 {
		limit = 10
	}
	s.throttle = newAuthThrottle(limit, now)
	if s.prices = cfg.Prices; s.prices == nil {
		s.prices = analysis.DefaultPrices()
	}
	if err := s.registerMetrics(); err != nil {
		s.Close()
		return nil, err
	}
	for _, rt := range s.routes() {
		s.mux.Handle(rt.pattern, s.wrap(rt))
	}
	s.handler = s.observe(http.HandlerFunc(s.serveMux))
	return s, nil
}

// Handler is the root handler: routing, auth, request logs and metrics.
func (s *Server) Handler() http.Handler { return s.handler }

// Close releases the Redis clients and stops the case events listener.
func (s *Server) Close() {
	s.events.close()
	_ = s.monitor.Close()
	_ = s.inspector.Close()
	_ = s.redis.Close()
}

// serveMux routes r; a request no route matches gets the JSON error shape
// with the mux's status (404, or 405 with its Allow header).
func (s *Server) serveMux(w http.ResponseWriter, r *http.Request) {
	if _, pattern := s.mux.Handler(r); pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	if s.pages != nil && !apiPath(r.URL.Path) {
		s.pages.ServeHTTP(w, r)
		return
	}
	cw := &discardWriter{header: w.Header()}
	s.mux.ServeHTTP(cw, r)
	switch cw.status {
	case http.StatusMethodNotAllowed:
		writeError(w, apiErr(cw.status, "method_not_allowed", "%s is not allowed on %s", r.Method, r.URL.Path))
	case http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		w.WriteHeader(cw.status)
	default:
		writeError(w, apiErr(http.StatusNotFound, "route_not_found", "no route for %s %s", r.Method, r.URL.Path))
	}
}

// discardWriter captures the status the mux's own 404/405 handlers write.
type discardWriter struct {
	header http.Header
	status int
}

func (d *discardWriter) Header() http.Header { return d.header }
func (d *discardWriter) WriteHeader(code int) {
	if d.status == 0 {
		d.status = code
	}
}
func (d *discardWriter) Write(b []byte) (int, error) {
	if d.status == 0 {
		d.status = http.StatusOK
	}
	return len(b), nil
}

// writeError writes e in the one error shape.
func writeError(w http.ResponseWriter, e *Error) {
	w.Header().Del("Content-Length")
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	if e.Code == errUnauthorized.Code {
		w.Header().Set("WWW-Authenticate", `Bearer realm="foiaflow"`)
	}
	_ = writeJSON(w, e.Status, errorBody{Error: errorDetail{Code: e.Code, Message: e.Message}})
}
