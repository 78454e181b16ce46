package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
)

// readyTimeout bounds each dependency check of /readyz.
const readyTimeout = 2 * time.Second

// Check is one dependency checked by /readyz.
type Check struct {
	Name string // "postgres", "redis"
	Ping func(ctx context.Context) error
}

// OpsServer is the operations endpoint of a worker or scheduler on addr
// (WORKER_METRICS_ADDR, SCHEDULER_METRICS_ADDR; loopback by default):
// GET /metrics (reg), GET /healthz (the process serves), GET /readyz (every
// check answers within 2 s). The endpoint is unauthenticated, so a failing
// dependency is reported as "<name>: unavailable" and its error, which can
// name hosts, users and databases, goes to the log only. The returned mux
// takes extra routes (pprof).
func OpsServer(addr string, reg *prometheus.Registry, log *zap.Logger, checks ...Check) (*http.Server, *http.ServeMux) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		for _, c := range checks {
			if err := c.Ping(ctx); err != nil {
				log.Warn("readyz: dependency check failed", zap.String("dependency", c.Name), zap.Error(err))
				w.Header().Set("Retry-After", "5")
				http.Error(w, c.Name+": unavailable", http.StatusServiceUnavailable)
				return
			}
		}
		fmt.Fprintln(w, "ready")
	})
	return &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}, mux
}

// PProfRoutes adds net/http/pprof's CPU profile, trace, symbol and index
// routes to mux under /debug/pprof/.
func PProfRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
}
