package api

import (
	"context"
	"net/http"
	"time"
)

// readyTimeout bounds each dependency check of /readyz.
const readyTimeout = 2 * time.Second

// healthz answers 200 while the process serves HTTP.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// readyz answers 200 when Postgres and Redis both answer a ping, else 503
// not_ready naming the failing dependency.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	checks := map[string]string{"postgres": "ok", "redis": "ok"}
	ready := true
	if err := s.st.Ping(ctx); err != nil {
		checks["postgres"], ready = err.Error(), false
	}
	if err := s.redis.Ping(ctx).Err(); err != nil {
		checks["redis"], ready = err.Error(), false
	}
	if !ready {
		return apiErr(http.StatusServiceUnavailable, "not_ready", "postgres: %s; redis: %s", checks["postgres"], checks["redis"])
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": checks})
	return nil
}
