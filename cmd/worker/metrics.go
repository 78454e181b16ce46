package main

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

type metrics struct {
	steps    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	sent     prometheus.Counter
	sendLag  prometheus.Histogram
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		steps: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "foiaflow_steps_total",
			Help: "Graph steps executed, by node and outcome (next, park, end, error)."}, []string{"node", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "foiaflow_step_duration_seconds",
			Help: "Duration of one graph step including lock and commit.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)},
			[]string{"node"}),
		sent: prometheus.NewCounter(prometheus.CounterOpts{Name: "foiaflow_emails_sent_total", Help: "Emails accepted by the transport."}),
		sendLag: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "foiaflow_email_queue_to_sent_seconds",
			Help: "From the execution claim to transport acceptance.", Buckets: prometheus.ExponentialBuckets(0.005, 2, 16)}),
	}
	reg.MustRegister(m.steps, m.duration, m.sent, m.sendLag, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observeStep(node, outcome string, d time.Duration) {
	m.steps.WithLabelValues(node, outcome).Inc()
	m.duration.WithLabelValues(node).Observe(d.Seconds())
}

func (m *metrics) observeSent(caseID int64, lag time.Duration) {
	m.sent.Inc()
	m.sendLag.Observe(lag.Seconds())
}
