package main

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/cmd/internal/app"
	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
)

// leaderKey is the advisory lock key of scheduler leadership.
const leaderKey = 1

// Scheduler runs the leader-elected loops: follow-up sweep, appeal-window
// escalations, escalation notices and the daily stale-proposal digest, outbox relay, stranded-run reaper and retention. Standbys poll for the leader lock; when
// the leader's session dies its lock is released and a standby takes over.
type Scheduler struct {
	App       *app.App
	Inspector *asynq.Inspector
	Metrics   *http.Server
	leader    atomic.Bool
	ticks     *prometheus.CounterVec
	// Now is the clock (tests inject one).
	Now func() time.Time
}

// NewScheduler wires a scheduler.
func NewScheduler(a *app.App) *Scheduler {
	reg := prometheus.NewRegistry()
	s := &Scheduler{App: a, Inspector: asynq.NewInspector(a.Redis), Now: time.Now,
		ticks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "foiaflow_scheduler_work_total",
			Help: "Work done by scheduler loops (runs started, rows relayed, runs reaped, rows deleted)."}, []string{"loop"})}
	leader := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "foiaflow_scheduler_leader", Help: "1 when this process leads."},
		func() float64 {
			if s.leader.Load() {
				return 1
			}
			return 0
		})
	reg.MustRegister(s.ticks, leader)
	s.Metrics, _ = app.OpsServer(a.Config.SchedulerMetricsAddr, reg, a.Log.Named("ops"),
		app.Check{Name: "postgres", Ping: a.Store.Ping})
	return s
}

// IsLeader reports whether this process currently leads.
func (s *Scheduler) IsLeader() bool { return s.leader.Load() }

// Run campaigns for leadership and runs the loops while leading, until ctx
// ends.
func (s *Scheduler) Run(ctx context.Context) error {
	if s.Metrics.Addr != "" {
		go func() {
			if err := s.Metrics.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.App.Log.Error("metrics server", zap.Error(err))
			}
		}()
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = s.Metrics.Shutdown(sctx)
		}()
	}
	log := s.App.Log
	for {
		lock, err := s.App.Store.TryLeader(ctx, leaderKey)
		switch {
		case err == nil:
			log.Info("scheduler: leading")
			s.leader.Store(true)
			s.lead(ctx, lock)
			s.leader.Store(false)
			lock.Release(ctx)
			log.Info("scheduler: leadership ended")
		case !errors.Is(err, store.ErrLockBusy):
			log.Warn("scheduler: leader election failed", zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
}

// lead runs the loops until ctx ends or the leader session is lost.
func (s *Scheduler) lead(ctx context.Context, lock *store.LeaderLock) {
	c := s.App.Config
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	loops := []struct {
		name  string
		every time.Duration
		fn    func(context.Context) (int, error)
	}{
		{"sweep", c.SweepInterval, s.sweep},
		{"appeals", c.SweepInterval, s.appealWindows},
		{"escalation-notices", c.SweepInterval, s.escalationNotices},
		{"stale-digest", c.SweepInterval, s.staleDigest},
		{"relay", c.RelayInterval, s.relay},
		{"reap", c.ReapInterval, s.reap},
		{"retention", time.Hour, s.retain},
	}
	done := make(chan struct{}, len(loops))
	for _, l := range loops {
		go func() {
			defer func() { done <- struct{}{} }()
			t := time.NewTicker(l.every)
			defer t.Stop()
			for {
				n, err := l.fn(ctx)
				if err != nil && ctx.Err() == nil {
					s.App.Log.Warn("scheduler loop failed", zap.String("loop", l.name), zap.Error(err))
				}
				s.ticks.WithLabelValues(l.name).Add(float64(n))
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		}()
	}
	alive := time.NewTicker(time.Second)
	defer alive.Stop()
	for {
		select {
		case <-ctx.Done():
		case <-alive.C:
			if err := lock.Alive(ctx); err == nil {
				continue
			} else if ctx.Err() == nil {
				s.App.Log.Warn("scheduler: leader session lost", zap.Error(err))
			}
		}
		cancel()
		for range loops {
			<-done
		}
		return
	}
}

func (s *Scheduler) sweep(ctx context.Context) (int, error) {
	n, err := jobs.SweepFollowups(ctx, s.App.Store, s.App.Dispatch, s.App.Queues, s.Now().UTC(), 20000, 500)
	if n > 0 {
		s.App.Log.Info("follow-up sweep started runs", zap.Int("runs", n))
	}
	return n, err
}

// appealWindows escalates appeal proposals still undecided when their
// appeal window is about to close.
func (s *Scheduler) appealWindows(ctx context.Context) (int, error) {
	warn := time.Duration(s.App.Config.AppealWarnDays) * 24 * time.Hour
	n, err := jobs.SweepAppealWindows(ctx, s.App.Store, s.Now().UTC(), warn, 1000)
	if n > 0 {
		s.App.Log.Warn("appeal windows closing with appeals undecided: escalated", zap.Int("proposals", n))
	}
	return n, err
}

// escalationNotices queues the webhook notice of every new escalation
// (nothing when ESCALATION_WEBHOOK_URL is empty).
func (s *Scheduler) escalationNotices(ctx context.Context) (int, error) {
	if s.App.Config.EscalationWebhookURL == "" {
		return 0, nil
	}
	return jobs.QueueEscalationNotices(ctx, s.App.Store, s.App.Dispatch, s.App.Queues, 1000)
}

// staleDigest queues the day's digest of stale proposals once, from
// STALE_DIGEST_HOUR (UTC) on (nothing when ESCALATION_WEBHOOK_URL is empty
// or STALE_PROPOSAL_AGE is 0).
func (s *Scheduler) staleDigest(ctx context.Context) (int, error) {
	c := s.App.Config
	now := s.Now().UTC()
	if c.EscalationWebhookURL == "" || c.StaleProposalAge <= 0 || now.Hour() < c.StaleDigestHour {
		return 0, nil
	}
	n, err := jobs.QueueStaleDigest(ctx, s.App.Store, s.App.Dispatch, s.App.Queues, now, c.StaleProposalAge)
	if n > 0 {
		s.App.Log.Info("stale proposals digest queued", zap.Int("proposals", n))
	}
	return n, err
}

func (s *Scheduler) relay(ctx context.Context) (int, error) {
	return s.App.Dispatch.Relay(ctx, s.App.Config.RelayGrace, 5000)
}

func (s *Scheduler) reap(ctx context.Context) (int, error) {
	r := &jobs.Reaper{Store: s.App.Store, Inspector: s.Inspector, Dispatch: s.App.Dispatch, Queues: s.App.Queues,
		Log: s.App.Log.Named("reaper"), Grace: s.App.Config.ReapGrace}
	res, err := r.Reap(ctx)
	return res.Runs + res.Decisions + res.Emails + res.Parses, err
}

func (s *Scheduler) retain(ctx context.Context) (int, error) {
	now := s.Now()
	steps, err := s.App.Store.DeleteStepsBefore(ctx, now.Add(-s.App.Config.StepRetention))
	if err != nil {
		return 0, err
	}
	// The live events of closed cases go with the same retention.
	events, err := s.App.Store.DeleteCaseEventsBefore(ctx, now.Add(-s.App.Config.StepRetention))
	if err != nil {
		return int(steps), err
	}
	steps += events
	rows, err := s.App.Store.DeleteDispatchedOutbox(ctx, now.Add(-24*time.Hour))
	if err != nil {
		return int(steps), err
	}
	// Mailgun tokens only need to outlive the webhook replay window.
	tokens, err := s.App.Store.DeleteWebhookTokensBefore(ctx, now.Add(-24*time.Hour))
	return int(steps + rows + tokens), err
}

// Close releases the inspector and App.
func (s *Scheduler) Close() {
	_ = s.Inspector.Close()
	s.App.Close()
}
