// Package app is the wiring shared by the three binaries: configuration
// parsed from the environment once (caarlos0/env), logging, the store, the
// queue client and the FOIA graph's dependencies. Only cmd/ builds concrete
// things (STYLE.md §1).
package app

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/foiaflow/foiaflow/analysis"
	"github.com/foiaflow/foiaflow/mail"
)

// Config is every setting of foiaflow, with its environment variable and
// default. README.md lists them.
type Config struct {
	DatabaseURL    string `env:"DATABASE_URL" envDefault:"postgres://postgres@127.0.0.1:5432/foiaflow?sslmode=disable"`
	DatabaseSchema string `env:"DATABASE_SCHEMA"`
	DatabaseConns  int32  `env:"DATABASE_MAX_CONNS" envDefault:"20"`
	// DatabaseConnectTimeout bounds a new connection and the ping of an idle
	// one: an unreachable database fails fast (the API answers 503).
	DatabaseConnectTimeout time.Duration `env:"DATABASE_CONNECT_TIMEOUT" envDefault:"1s"`
	RedisAddr              string        `env:"REDIS_ADDR" envDefault:"127.0.0.1:6379"`
	RedisPassword          string        `env:"REDIS_PASSWORD"`
	RedisDB                int           `env:"REDIS_DB" envDefault:"0"`
	QueuePrefix            string        `env:"QUEUE_PREFIX"`
	LogLevel               string        `env:"LOG_LEVEL" envDefault:"info"`
	LogFormat              string        `env:"LOG_FORMAT" envDefault:"json"` // json | console

	WorkerConcurrency     int           `env:"WORKER_CONCURRENCY" envDefault:"8"`
	WorkerShutdownTimeout time.Duration `env:"WORKER_SHUTDOWN_TIMEOUT" envDefault:"25s"`
	WorkerPollInterval    time.Duration `env:"WORKER_POLL_INTERVAL" envDefault:"2ms"`
	WorkerID              string        `env:"WORKER_ID"` // default: hostname-pid
	// StepTimeout bounds every task (asynq.Timeout): a graph step, a resume,
	// a send, a parse. A task past it is abandoned, its case lock released,
	// the failure recorded on the run and the task retried. It must exceed
	// the outbound calls a step makes (OPENAI_TIMEOUT, SMTP_TIMEOUT,
	// MIME_PARSE_TIMEOUT) and stay well under asynq's 30 min default.
	StepTimeout time.Duration `env:"STEP_TIMEOUT" envDefault:"2m"`
	// WorkerMetricsAddr serves /metrics, /healthz and /readyz, unauthenticated:
	// loopback by default; containers set ":9091" for probes and scrapes.
	WorkerMetricsAddr string `env:"WORKER_METRICS_ADDR" envDefault:"127.0.0.1:9091"`
	// DBTraceCount counts Postgres queries (foiaflow_db_queries_total on the
	// worker's /metrics); the bench divides it by steps.
	DBTraceCount bool `env:"DB_TRACE_COUNT" envDefault:"false"`
	// PProf serves net/http/pprof on the worker's metrics address.
	PProf bool `env:"PPROF" envDefault:"false"`
	// APIPProfAddr serves net/http/pprof of the api on its own listener,
	// unauthenticated, so loopback only in practice (empty: off).
	APIPProfAddr string `env:"API_PPROF_ADDR"`

	Analyzer      string        `env:"ANALYZER" envDefault:"offline"` // offline | openai
	Drafter       string        `env:"DRAFTER" envDefault:"offline"`  // offline | openai
	OpenAIAPIKey  string        `env:"OPENAI_API_KEY"`
	OpenAIBaseURL string        `env:"OPENAI_BASE_URL"`
	OpenAIModel   string        `env:"OPENAI_MODEL" envDefault:"gpt-4o-mini"`
	OpenAITimeout time.Duration `env:"OPENAI_TIMEOUT" envDefault:"30s"`
	// LLMPrices prices model calls for the cost report: comma-separated
	// "model=IN/OUT" in whole US cents per 1M prompt/completion tokens,
	// overriding or extending analysis.DefaultPrices (Prices parses it).
	LLMPrices string `env:"LLM_PRICES"`

	FeeAutoApproveMaxCents int64   `env:"FEE_AUTO_APPROVE_MAX_CENTS" envDefault:"5000"`
	MinConfidence          float64 `env:"MIN_CONFIDENCE" envDefault:"0.8"`
	MaxFollowups           int     `env:"MAX_FOLLOWUPS" envDefault:"3"`
	MaxAdjustments         int     `env:"MAX_ADJUSTMENTS" envDefault:"3"`
	ReasonableDays         int     `env:"REASONABLE_TIME_DAYS" envDefault:"30"`
	// AppealWarnDays: an appeal proposal still undecided this many days
	// before its appeal window closes is escalated.
	AppealWarnDays int `env:"APPEAL_WARN_DAYS" envDefault:"5"`
	// EscalationWebhookURL receives every new escalation as signed JSON
	// (jobs.EscalationNotifyHandler); empty turns the notices off.
	// EscalationWebhookSecret keys the HMAC-SHA256 signature (required with
	// a URL, at least 16 bytes).
	EscalationWebhookURL    string `env:"ESCALATION_WEBHOOK_URL"`
	EscalationWebhookSecret string `env:"ESCALATION_WEBHOOK_SECRET"`
	// StaleProposalAge: once a day (at StaleDigestHour UTC) the proposals
	// pending approval for longer than this are posted to the escalation
	// webhook as one digest (jobs.QueueStaleDigest); 0 turns it off.
	StaleProposalAge time.Duration `env:"STALE_PROPOSAL_AGE" envDefault:"48h"`
	StaleDigestHour  int           `env:"STALE_DIGEST_HOUR" envDefault:"9"`
	// AutoSendsPerDay caps emails a case sends without a human in any 24
	// hours; past it the send is gated and escalated (loop safety).
	AutoSendsPerDay int `env:"AUTO_SENDS_PER_CASE_PER_DAY" envDefault:"3"`

	MailDomain  string `env:"MAIL_DOMAIN" envDefault:"foiaflow.local"`
	MailFrom    string `env:"MAIL_FROM" envDefault:"foiaflow <requests@foiaflow.local>"`
	MailSinkDir string `env:"MAIL_SINK_DIR" envDefault:"var/outbox"`
	// MailIDSecret keys the Message-IDs and reply tokens (mail.IDs). It may
	// be left empty only while MAIL_DOMAIN is a special-use development
	// domain (DevMailDomain).
	MailIDSecret      string        `env:"MAIL_ID_SECRET"`
	SMTPHost          string        `env:"SMTP_HOST"` // empty: .eml file sink
	SMTPPort          int           `env:"SMTP_PORT" envDefault:"587"`
	SMTPUsername      string        `env:"SMTP_USERNAME"`
	SMTPPassword      string        `env:"SMTP_PASSWORD"`
	SMTPTLS           string        `env:"SMTP_TLS" envDefault:"mandatory"` // mandatory | opportunistic | none
	SMTPTimeout       time.Duration `env:"SMTP_TIMEOUT" envDefault:"30s"`
	SendBusinessHours bool          `env:"SEND_BUSINESS_HOURS" envDefault:"true"`
	SendStartHour     int           `env:"SEND_START_HOUR" envDefault:"9"`
	SendEndHour       int           `env:"SEND_END_HOUR" envDefault:"17"`
	SendMaxJitter     time.Duration `env:"SEND_MAX_JITTER" envDefault:"2h"`

	APIAddr             string        `env:"API_ADDR" envDefault:":8080"`
	BootstrapAdminKey   string        `env:"API_BOOTSTRAP_ADMIN_KEY"`
	InboundRawSecret    string        `env:"INBOUND_RAW_SECRET"`
	MailgunSigningKey   string        `env:"MAILGUN_SIGNING_KEY"`
	InboundMaxBytes     int64         `env:"INBOUND_MAX_BYTES" envDefault:"52428800"`
	WebhookReplayWindow time.Duration `env:"WEBHOOK_REPLAY_WINDOW" envDefault:"5m"`
	DecisionsPerMinute  int           `env:"DECISIONS_PER_CASE_PER_MINUTE" envDefault:"30"`
	// AuthFailuresPerMinute: failed authentications per source address or
	// per presented key before the API answers 429.
	AuthFailuresPerMinute int `env:"AUTH_FAILURES_PER_MINUTE" envDefault:"10"`

	// The message store (issue 11) and the bounded parse (issue 10).
	DataDir            string        `env:"DATA_DIR" envDefault:"var/data"`
	MessageStore       string        `env:"MESSAGE_STORE" envDefault:"dir"` // dir | s3
	S3Endpoint         string        `env:"S3_ENDPOINT"`
	S3Bucket           string        `env:"S3_BUCKET"`
	S3Prefix           string        `env:"S3_PREFIX"`
	S3Region           string        `env:"S3_REGION"`
	S3AccessKey        string        `env:"S3_ACCESS_KEY"`
	S3SecretKey        string        `env:"S3_SECRET_KEY"`
	S3TLS              bool          `env:"S3_TLS" envDefault:"true"`
	S3PathStyle        bool          `env:"S3_PATH_STYLE" envDefault:"false"`
	MessageMaxBytes    int64         `env:"MESSAGE_MAX_BYTES" envDefault:"26214400"`
	AttachmentMaxBytes int64         `env:"ATTACHMENT_MAX_BYTES" envDefault:"20971520"`
	MIMEMaxDepth       int           `env:"MIME_MAX_DEPTH" envDefault:"16"`
	MIMEMaxParts       int           `env:"MIME_MAX_PARTS" envDefault:"500"`
	MIMEMaxHeaderBytes int           `env:"MIME_MAX_HEADER_BYTES" envDefault:"262144"`
	MIMEParseTimeout   time.Duration `env:"MIME_PARSE_TIMEOUT" envDefault:"10s"`
	// InboundParseBudget bounds the raw bytes one worker parses at once
	// (inbound.ParseBudget): parallel large messages take turns.
	InboundParseBudget int64 `env:"INBOUND_PARSE_BUDGET_BYTES" envDefault:"33554432"`

	SweepInterval time.Duration `env:"SCHEDULER_SWEEP_INTERVAL" envDefault:"5s"`
	RelayInterval time.Duration `env:"SCHEDULER_RELAY_INTERVAL" envDefault:"1s"`
	RelayGrace    time.Duration `env:"SCHEDULER_RELAY_GRACE" envDefault:"2s"`
	ReapInterval  time.Duration `env:"SCHEDULER_REAP_INTERVAL" envDefault:"2s"`
	ReapGrace     time.Duration `env:"SCHEDULER_REAP_GRACE" envDefault:"3s"`
	StepRetention time.Duration `env:"STEP_RETENTION" envDefault:"720h"`
	// SchedulerMetricsAddr: as WorkerMetricsAddr.
	SchedulerMetricsAddr string `env:"SCHEDULER_METRICS_ADDR" envDefault:"127.0.0.1:9092"`
}

// devMailIDSecret keys Message-IDs and reply tokens when MAIL_ID_SECRET is
// empty on a development mail domain. It is public, so it is refused for
// any other domain.
const devMailIDSecret = "foiaflow-development-mail-id-secret-do-not-use"

// DevMailDomain reports whether domain is a special-use name that cannot
// receive Internet mail (RFC 2606, RFC 6761: .local, .test, .example,
// .invalid, .localhost): a development or test setup, where MAIL_ID_SECRET
// may be left to its development default like the other defaults.
func DevMailDomain(domain string) bool {
	d := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(domain), "."))
	tld := d[strings.LastIndexByte(d, '.')+1:]
	switch tld {
	case "local", "test", "example", "invalid", "localhost":
		return true
	}
	return false
}

// MailIDs returns the minter of Message-IDs and reply tokens: keyed by
// MAIL_ID_SECRET (at least 32 bytes), or by the public development secret
// when it is empty and MAIL_DOMAIN is a development domain. Production
// (any other domain) must set its own secret; the development one is
// refused there.
func (c Config) MailIDs() (mail.IDs, error) {
	secret, dev := c.MailIDSecret, DevMailDomain(c.MailDomain)
	switch {
	case secret == "" && !dev:
		return mail.IDs{}, fmt.Errorf("MAIL_ID_SECRET is required for MAIL_DOMAIN %q (at least %d bytes, e.g. `openssl rand -hex 32`); "+
			"without it Message-IDs and reply addresses could be forged", c.MailDomain, mail.MinIDSecretBytes)
	case secret == "":
		secret = devMailIDSecret
	case secret == devMailIDSecret && !dev:
		return mail.IDs{}, fmt.Errorf("MAIL_ID_SECRET is the public development secret; set your own for MAIL_DOMAIN %q", c.MailDomain)
	case len(secret) < mail.MinIDSecretBytes:
		return mail.IDs{}, fmt.Errorf("MAIL_ID_SECRET must be at least %d bytes, got %d", mail.MinIDSecretBytes, len(secret))
	}
	ids, err := mail.NewIDs([]byte(secret), c.MailDomain)
	if err != nil {
		return mail.IDs{}, fmt.Errorf("MAIL_ID_SECRET/MAIL_DOMAIN: %w", err)
	}
	return ids, nil
}

// Prices returns the price table of the cost report: analysis.DefaultPrices
// with LLM_PRICES's entries over them.
func (c Config) Prices() (analysis.Prices, error) {
	return analysis.ParsePrices(c.LLMPrices)
}

// Load parses the environment and validates the result.
func Load() (Config, error) {
	c, err := env.ParseAs[Config]()
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	return c, c.Validate()
}

// Defaults is the configuration of an empty environment: every setting's
// default, from the one place it is written (Config's envDefault tags).
// Harnesses that mirror a setting (cmd/bench's -concurrency, -poll,
// -db-conns) take their defaults from here.
func Defaults() Config {
	c, err := env.ParseAsWithOptions[Config](env.Options{Environment: map[string]string{}})
	if err != nil {
		panic(fmt.Sprintf("config: the defaults do not parse: %v", err)) // a broken envDefault tag
	}
	return c
}

// Validate checks ranges and enumerations; all problems are reported at once.
func (c Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(c.DatabaseURL != "", "DATABASE_URL is required")
	check(c.DatabaseConnectTimeout > 0, "DATABASE_CONNECT_TIMEOUT must be > 0")
	check(c.WorkerConcurrency > 0, "WORKER_CONCURRENCY must be > 0")
	check(c.StepTimeout > c.OpenAITimeout && c.StepTimeout > c.SMTPTimeout && c.StepTimeout > c.MIMEParseTimeout,
		"STEP_TIMEOUT (%s) must exceed OPENAI_TIMEOUT, SMTP_TIMEOUT and MIME_PARSE_TIMEOUT", c.StepTimeout)
	check(c.StepTimeout <= 15*time.Minute, "STEP_TIMEOUT (%s) must be at most 15m", c.StepTimeout)
	check(c.Analyzer == "offline" || c.Analyzer == "openai", "ANALYZER must be offline or openai, got %q", c.Analyzer)
	check(c.Drafter == "offline" || c.Drafter == "openai", "DRAFTER must be offline or openai, got %q", c.Drafter)
	check((c.Analyzer != "openai" && c.Drafter != "openai") || c.OpenAIAPIKey != "" || c.OpenAIBaseURL != "",
		"ANALYZER/DRAFTER openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server)")
	check(c.FeeAutoApproveMaxCents >= 0, "FEE_AUTO_APPROVE_MAX_CENTS must be >= 0")
	check(c.MinConfidence >= 0 && c.MinConfidence <= 1, "MIN_CONFIDENCE must be in [0,1]")
	check(c.MaxFollowups > 0, "MAX_FOLLOWUPS must be > 0")
	check(c.MaxAdjustments >= 0, "MAX_ADJUSTMENTS must be >= 0")
	check(c.ReasonableDays > 0, "REASONABLE_TIME_DAYS must be > 0")
	check(c.AppealWarnDays >= 0 && c.AppealWarnDays <= 366, "APPEAL_WARN_DAYS must be in 0..366")
	check(c.EscalationWebhookURL == "" || strings.HasPrefix(c.EscalationWebhookURL, "https://") || strings.HasPrefix(c.EscalationWebhookURL, "http://"),
		"ESCALATION_WEBHOOK_URL must be an http(s) URL")
	check(c.EscalationWebhookURL == "" || len(c.EscalationWebhookSecret) >= 16,
		"ESCALATION_WEBHOOK_SECRET (at least 16 bytes) is required with ESCALATION_WEBHOOK_URL")
	check(c.StaleProposalAge >= 0, "STALE_PROPOSAL_AGE must be >= 0")
	check(c.StaleDigestHour >= 0 && c.StaleDigestHour <= 23, "STALE_DIGEST_HOUR must be in 0..23 (UTC)")
	check(c.SendStartHour >= 0 && c.SendEndHour <= 24 && c.SendStartHour < c.SendEndHour, "SEND_START_HOUR < SEND_END_HOUR within 0–24")
	check(c.SendMaxJitter >= 0, "SEND_MAX_JITTER must be >= 0")
	check(strings.Contains(c.MailFrom, "@"), "MAIL_FROM must contain an address")
	check(c.MailDomain != "", "MAIL_DOMAIN is required")
	if _, err := c.MailIDs(); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.Prices(); err != nil {
		errs = append(errs, err)
	}
	check(c.SMTPTLS == "mandatory" || c.SMTPTLS == "opportunistic" || c.SMTPTLS == "none", "SMTP_TLS must be mandatory, opportunistic or none")
	check(c.InboundMaxBytes > 0, "INBOUND_MAX_BYTES must be > 0")
	check(c.MessageMaxBytes > 0 && c.MessageMaxBytes <= c.InboundMaxBytes, "MESSAGE_MAX_BYTES must be in (0, INBOUND_MAX_BYTES]")
	check(c.AttachmentMaxBytes > 0, "ATTACHMENT_MAX_BYTES must be > 0")
	check(c.MIMEMaxDepth > 0 && c.MIMEMaxParts > 0 && c.MIMEMaxHeaderBytes > 0 && c.MIMEParseTimeout > 0,
		"MIME_MAX_DEPTH, MIME_MAX_PARTS, MIME_MAX_HEADER_BYTES and MIME_PARSE_TIMEOUT must be > 0")
	check(c.InboundParseBudget > 0, "INBOUND_PARSE_BUDGET_BYTES must be > 0")
	check(c.DataDir != "", "DATA_DIR is required (scratch space for inbound bodies, and the message store when MESSAGE_STORE=dir)")
	check(c.MessageStore == "dir" || c.MessageStore == "s3", "MESSAGE_STORE must be dir or s3, got %q", c.MessageStore)
	check(c.MessageStore != "s3" || (c.S3Endpoint != "" && c.S3Bucket != ""), "MESSAGE_STORE=s3 needs S3_ENDPOINT and S3_BUCKET")
	check(c.DecisionsPerMinute > 0, "DECISIONS_PER_CASE_PER_MINUTE must be > 0")
	check(c.AutoSendsPerDay > 0, "AUTO_SENDS_PER_CASE_PER_DAY must be > 0")
	check(c.AuthFailuresPerMinute > 0, "AUTH_FAILURES_PER_MINUTE must be > 0")
	return errors.Join(errs...)
}
