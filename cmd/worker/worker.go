package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/cmd/internal/app"
	"github.com/foiaflow/foiaflow/inbound"
	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
)

// Worker is the asynq server running graph steps, resumes and email sends,
// with its metrics and health endpoints.
type Worker struct {
	App     *app.App
	Server  *asynq.Server
	Metrics *http.Server
	mux     *asynq.ServeMux
	marker  *jobs.DispatchMarker
}

// NewWorker wires a worker from an opened App.
func NewWorker(a *app.App) (*Worker, error) {
	c := a.Config
	deps, err := a.Deps()
	if err != nil {
		return nil, err
	}
	sender, err := a.Sender()
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	m := newMetrics(reg)
	id := c.WorkerIDOrDefault()
	marker := &jobs.DispatchMarker{Store: a.Store, Log: a.Log.Named("dispatch")}
	dispatch := &jobs.Dispatcher{Client: a.Client, Store: a.Store, Log: a.Log.Named("dispatch"), Marker: marker,
		Timeout: c.StepTimeout}
	blobs, err := a.Blobs(context.Background())
	if err != nil {
		return nil, err
	}
	proc := &inbound.Processor{Store: a.Store, Blobs: blobs, Matcher: inbound.CaseMatcher{Store: a.Store, MailDomain: c.MailDomain},
		Limits: a.ParseLimits(), AttachmentMaxBytes: c.AttachmentMaxBytes, Log: a.Log.Named("inbound"),
		Budget: inbound.NewParseBudget(c.InboundParseBudget),
		StartRun: func(ctx context.Context, tx *store.Tx, n store.NewRun) (store.Run, bool, error) {
			return jobs.StartRun(ctx, tx, a.Queues, n)
		}}
	w := jobs.NewWorker(jobs.WorkerDeps{Store: a.Store, Deps: deps, Dispatch: dispatch, Queues: a.Queues, WorkerID: id,
		Sender: sender, Log: a.Log, Inbound: proc, ObserveStep: m.observeStep, OnSent: m.observeSent,
		WebhookURL: c.EscalationWebhookURL, WebhookSecret: []byte(c.EscalationWebhookSecret)})
	srv := jobs.NewServer(a.Redis, jobs.ServerOptions{Concurrency: c.WorkerConcurrency, Queues: a.Queues,
		ShutdownTimeout: c.WorkerShutdownTimeout, PollInterval: c.WorkerPollInterval,
		Logger: zapAsynqLogger{a.Log.Named("asynq").Sugar()}, LogLevel: asynq.WarnLevel})
	if q := a.Queries; q != nil {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "foiaflow_db_queries_total",
			Help: "Postgres round trips of this worker: queries, and batches of statements (DB_TRACE_COUNT)."},
			func() float64 { return float64(q.Count()) }))
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "foiaflow_db_statements_total",
			Help: "Postgres statements sent by this worker, alone or in batches (DB_TRACE_COUNT)."},
			func() float64 { return float64(q.Statements()) }))
	}
	ops, hm := app.OpsServer(c.WorkerMetricsAddr, reg, a.Log.Named("ops"),
		app.Check{Name: "postgres", Ping: a.Store.Ping},
		app.Check{Name: "redis", Ping: func(context.Context) error { return srv.Ping() }})
	if c.PProf {
		app.PProfRoutes(hm)
	}
	a.Log.Info("worker configured", zap.String("worker_id", id), zap.Int("concurrency", c.WorkerConcurrency),
		zap.Duration("poll_interval", c.WorkerPollInterval), zap.Any("queues", a.Queues.Weights()))
	return &Worker{App: a, Server: srv, Metrics: ops, mux: w.Mux(), marker: marker}, nil
}

// Run processes tasks until ctx ends, then shuts down gracefully: in-flight
// tasks get WORKER_SHUTDOWN_TIMEOUT to finish; unfinished ones go back to
// the queue (and their steps are fenced, so re-running them is safe).
func (w *Worker) Run(ctx context.Context) error {
	mctx, stopMarker := context.WithCancel(context.WithoutCancel(ctx))
	markerDone := make(chan struct{})
	go func() { defer close(markerDone); w.marker.Run(mctx) }()
	defer func() { stopMarker(); <-markerDone }() // last stamps flushed after the server drained
	if err := w.Server.Start(w.mux); err != nil {
		return fmt.Errorf("start asynq server: %w", err)
	}
	errc := make(chan error, 1)
	if w.Metrics.Addr != "" {
		go func() {
			if err := w.Metrics.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("metrics server: %w", err)
			}
		}()
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	w.App.Log.Info("worker shutting down")
	w.Server.Shutdown()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = w.Metrics.Shutdown(sctx)
	return err
}

// Close releases the App.
func (w *Worker) Close() { w.App.Close() }

// zapAsynqLogger routes asynq's logs to zap.
type zapAsynqLogger struct{ s *zap.SugaredLogger }

func (l zapAsynqLogger) Debug(args ...any) { l.s.Debug(args...) }
func (l zapAsynqLogger) Info(args ...any)  { l.s.Info(args...) }
func (l zapAsynqLogger) Warn(args ...any)  { l.s.Warn(args...) }
func (l zapAsynqLogger) Error(args ...any) { l.s.Error(args...) }
func (l zapAsynqLogger) Fatal(args ...any) { l.s.Fatal(args...) }
