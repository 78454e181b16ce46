package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hibiken/asynq"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/foiaflow/foiaflow/analysis"
	"github.com/foiaflow/foiaflow/blobstore"
	"github.com/foiaflow/foiaflow/clock"
	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/migrations"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// App holds what every binary needs.
type App struct {
	Config   Config
	Log      *zap.Logger
	Store    *store.Store
	Redis    asynq.RedisClientOpt
	Client   *asynq.Client
	Queues   jobs.Queues
	Dispatch *jobs.Dispatcher
	// Queries counts Postgres queries when DB_TRACE_COUNT is set, else nil.
	Queries *QueryCounter
}

// NewLogger builds the zap logger of LOG_LEVEL and LOG_FORMAT.
func NewLogger(c Config) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(c.LogLevel)
	if err != nil {
		return nil, fmt.Errorf("LOG_LEVEL: %w", err)
	}
	zc := zap.NewProductionConfig()
	if c.LogFormat == "console" {
		zc = zap.NewDevelopmentConfig()
	}
	zc.Level = zap.NewAtomicLevelAt(lvl)
	return zc.Build()
}

// Open connects to Postgres (migrating it when migrate is true) and Redis.
func Open(ctx context.Context, c Config, log *zap.Logger, migrate bool) (*App, error) {
	sc := store.Config{URL: c.DatabaseURL, Schema: c.DatabaseSchema, MaxConns: c.DatabaseConns, ConnectTimeout: c.DatabaseConnectTimeout}
	var qc *QueryCounter
	if c.DBTraceCount {
		qc = &QueryCounter{}
		sc.Tracer = qc
	}
	st, err := store.Open(ctx, sc)
	if err != nil {
		return nil, err
	}
	if migrate {
		applied, err := migrations.Up(ctx, st.Pool())
		if err != nil {
			st.Close()
			return nil, err
		}
		if len(applied) > 0 {
			log.Info("migrations applied", zap.Int64s("versions", applied))
		}
	}
	if c.MailIDSecret == "" {
		log.Warn("MAIL_ID_SECRET is not set: Message-IDs and reply tokens use the public development secret "+
			"(allowed only for a development MAIL_DOMAIN)", zap.String("mail_domain", c.MailDomain))
	}
	r := asynq.RedisClientOpt{Addr: c.RedisAddr, Password: c.RedisPassword, DB: c.RedisDB}
	cl := asynq.NewClient(r)
	a := &App{Config: c, Log: log, Store: st, Redis: r, Client: cl, Queues: jobs.PrefixedQueues(c.QueuePrefix), Queries: qc}
	a.Dispatch = &jobs.Dispatcher{Client: cl, Store: st, Log: log.Named("dispatch"), Timeout: c.StepTimeout}
	return a, nil
}

// Blobs opens the message store of MESSAGE_STORE: DATA_DIR/messages, or the
// S3 bucket.
func (a *App) Blobs(ctx context.Context) (blobstore.Store, error) {
	c := a.Config
	var st blobstore.Store
	var err error
	switch c.MessageStore {
	case "s3":
		st, err = blobstore.NewS3(ctx, blobstore.S3Config{Endpoint: c.S3Endpoint, Bucket: c.S3Bucket, Prefix: c.S3Prefix,
			Region: c.S3Region, AccessKey: c.S3AccessKey, SecretKey: c.S3SecretKey, TLS: c.S3TLS, PathStyle: c.S3PathStyle})
	default:
		st, err = blobstore.NewDir(filepath.Join(c.DataDir, "messages"))
	}
	if err != nil {
		return nil, fmt.Errorf("message store: %w", err)
	}
	a.Log.Info("message store", zap.String("store", st.Name()))
	return st, nil
}

// SpoolDir is where webhook bodies wait while their signature is checked
// (DATA_DIR/tmp), created if needed.
func (a *App) SpoolDir() (string, error) {
	d := filepath.Join(a.Config.DataDir, "tmp")
	if err := os.MkdirAll(d, 0o750); err != nil {
		return "", fmt.Errorf("DATA_DIR: %w", err)
	}
	return d, nil
}

// ParseLimits are the bounded parser's limits (MESSAGE_MAX_BYTES, MIME_*).
func (a *App) ParseLimits() mail.Limits {
	c := a.Config
	return mail.Limits{MaxBytes: c.MessageMaxBytes, MaxDepth: c.MIMEMaxDepth, MaxParts: c.MIMEMaxParts,
		MaxHeaderBytes: c.MIMEMaxHeaderBytes, Timeout: c.MIMEParseTimeout}
}

// Close releases connections.
func (a *App) Close() {
	_ = a.Client.Close()
	a.Store.Close()
}

// Deps builds the FOIA graph's dependencies from the configuration.
func (a *App) Deps() (*workflow.Deps, error) {
	c := a.Config
	planner, err := a.Planner()
	if err != nil {
		return nil, err
	}
	an, dr, err := a.judgement()
	if err != nil {
		return nil, err
	}
	ids, err := c.MailIDs()
	if err != nil {
		return nil, err
	}
	return &workflow.Deps{Cases: a.Store, Analyzer: an, Drafter: dr,
		Planner: planner,
		Mailer: mailer{from: c.MailFrom, domain: c.MailDomain, ids: ids, businessHours: c.SendBusinessHours,
			start: c.SendStartHour, end: c.SendEndHour, jitter: c.SendMaxJitter},
		Policy: workflow.RoutingPolicy{FeeAutoApproveMaxCents: c.FeeAutoApproveMaxCents, MinConfidence: c.MinConfidence,
			MaxFollowups: c.MaxFollowups},
		MaxAdjustments: c.MaxAdjustments, AutoSendsPerDay: c.AutoSendsPerDay, MemoAnalysis: c.Analyzer == "openai", MemoDrafts: c.Drafter == "openai"}, nil
}

// Planner returns the statutory clock: jurisdiction rules from the embedded
// deadline CSV, REASONABLE_TIME_DAYS for states without a deadline, and
// MAX_FOLLOWUPS.
func (a *App) Planner() (workflow.Planner, error) {
	rules, err := clock.LoadRules(dataset.JurisdictionDeadlinesCSV, a.Config.ReasonableDays)
	if err != nil {
		return nil, err
	}
	return clockPlanner{rules: rules, policy: clock.NewFollowupPolicy(a.Config.MaxFollowups)}, nil
}

// Sender returns the SMTP sender when SMTP_HOST is set, else the .eml sink.
func (a *App) Sender() (mail.Sender, error) {
	c := a.Config
	if c.SMTPHost == "" {
		a.Log.Info("no SMTP_HOST: writing outbound mail as .eml files", zap.String("dir", c.MailSinkDir))
		return mail.NewFileSender(c.MailSinkDir)
	}
	return mail.NewSMTPSender(mail.SMTPConfig{Host: c.SMTPHost, Port: c.SMTPPort, Username: c.SMTPUsername,
		Password: c.SMTPPassword, TLS: mail.TLSPolicy(c.SMTPTLS), ConnectTimeout: c.SMTPTimeout, SendTimeout: c.SMTPTimeout})
}

// WorkerID returns WORKER_ID or hostname-pid.
func (c Config) WorkerIDOrDefault() string {
	if c.WorkerID != "" {
		return c.WorkerID
	}
	h, _ := os.Hostname()
	return fmt.Sprintf("%s-%d", strings.Split(h, ".")[0], os.Getpid())
}

// judgement returns the analyzer and drafter of ANALYZER and DRAFTER.
func (a *App) judgement() (workflow.Analyzer, workflow.Drafter, error) {
	c := a.Config
	var an workflow.Analyzer = analysis.Offline{}
	var dr workflow.Drafter = analysis.Templates{}
	oc := analysis.OpenAIConfig{BaseURL: c.OpenAIBaseURL, Model: c.OpenAIModel, APIKey: c.OpenAIAPIKey, AttemptTimeout: c.OpenAITimeout}
	if c.Analyzer == "openai" {
		o, err := analysis.NewOpenAIAnalyzer(oc)
		if err != nil {
			return nil, nil, fmt.Errorf("openai analyzer: %w", err)
		}
		// The offline model reads every reply too; confident
		// disagreement goes to a human (analysis.SecondOpinion).
		an = analysis.SecondOpinion{Primary: o, Second: analysis.Offline{}, MinConfidence: c.MinConfidence}
	}
	if c.Drafter == "openai" {
		o, err := analysis.NewOpenAIDrafter(oc)
		if err != nil {
			return nil, nil, fmt.Errorf("openai drafter: %w", err)
		}
		dr = o
	}
	a.Log.Info("judgement configured", zap.String("analyzer", c.Analyzer), zap.String("drafter", c.Drafter))
	return an, dr, nil
}
