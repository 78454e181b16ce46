package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hibiken/asynq/x/metrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/store"
)

// httpMetrics are the request metrics of the API.
type httpMetrics struct {
	requests *prometheus.CounterVec   // foiaflow_http_requests_total{route,status}
	duration *prometheus.HistogramVec // foiaflow_http_request_duration_seconds{route}
}

// opsScrapeTimeout bounds the Postgres queries of one scrape.
const opsScrapeTimeout = 5 * time.Second

// registerMetrics registers the HTTP metrics, the Postgres-backed gauges
// (opsCollector), asynq's queue collector and the Go/process collectors on
// the server's own registry.
func (s *Server) registerMetrics() error {
	s.http = &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "foiaflow_http_requests_total",
			Help: "HTTP requests served, by route pattern and status code."}, []string{"route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "foiaflow_http_request_duration_seconds",
			Help: "HTTP request duration in seconds, by route pattern.", Buckets: prometheus.DefBuckets}, []string{"route"}),
	}
	for _, c := range []prometheus.Collector{s.http.requests, s.http.duration,
		&opsCollector{st: s.st, log: s.log},
		metrics.NewQueueMetricsCollector(s.inspector),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := s.registry.Register(c); err != nil {
			return fmt.Errorf("api: register metrics: %w", err)
		}
	}
	return nil
}

func (s *Server) metricsHandler() http.Handler {
	return promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{ErrorLog: zap.NewStdLog(s.log)})
}

// opsCollector reads the operational state from Postgres on every scrape.
type opsCollector struct {
	st  *store.Store
	log *zap.Logger
}

var (
	descRuns      = prometheus.NewDesc("foiaflow_runs", "Graph runs by status (Postgres).", []string{"status"}, nil)
	descParked    = prometheus.NewDesc("foiaflow_parked_runs", "Runs parked at a human gate (Postgres).", nil, nil)
	descParkedAge = prometheus.NewDesc("foiaflow_oldest_parked_run_age_seconds",
		"Seconds since the longest-parked run parked; 0 when none is parked.", nil, nil)
	descProposals = prometheus.NewDesc("foiaflow_proposals", "Proposals by status (Postgres).", []string{"status"}, nil)
	descSteps     = prometheus.NewDesc("foiaflow_run_steps", "Recorded graph steps by node and outcome (run_steps, within retention).",
		[]string{"node", "outcome"}, nil)
	descScrapeErr = prometheus.NewDesc("foiaflow_ops_scrape_error", "1 when the last Postgres read for metrics failed.", nil, nil)
)

// Describe implements prometheus.Collector.
func (c *opsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRuns, descParked, descParkedAge, descProposals, descSteps, descScrapeErr} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *opsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), opsScrapeTimeout)
	defer cancel()
	o, err := c.st.Ops(ctx)
	if err != nil {
		c.log.Warn("metrics: ops scrape failed", zap.Error(err))
		ch <- prometheus.MustNewConstMetric(descScrapeErr, prometheus.GaugeValue, 1)
		return
	}
	ch <- prometheus.MustNewConstMetric(descScrapeErr, prometheus.GaugeValue, 0)
	for status, n := range o.RunsByStatus {
		ch <- prometheus.MustNewConstMetric(descRuns, prometheus.GaugeValue, float64(n), status)
	}
	ch <- prometheus.MustNewConstMetric(descParked, prometheus.GaugeValue, float64(o.RunsByStatus["parked"]))
	age := 0.0
	if o.OldestParkedAt != nil {
		age = time.Since(*o.OldestParkedAt).Seconds()
	}
	ch <- prometheus.MustNewConstMetric(descParkedAge, prometheus.GaugeValue, age)
	for status, n := range o.ProposalsByStatus {
		ch <- prometheus.MustNewConstMetric(descProposals, prometheus.GaugeValue, float64(n), status)
	}
	for _, sc := range o.Steps {
		ch <- prometheus.MustNewConstMetric(descSteps, prometheus.GaugeValue, float64(sc.N), sc.Node, sc.Outcome)
	}
}
