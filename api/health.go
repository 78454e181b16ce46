package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// readyTimeout bounds each dependency check of /readyz.
const readyTimeout = 2 * time.Second

// healthz answers 200 while the process serves HTTP.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when Postgres and Redis both answer a ping, else 503
// not_ready naming the failing dependency as "unavailable" only: this
// route is unauthenticated, so driver errors (which name hosts, users and
// databases) go to the log, never to the caller.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	checks := map[string]string{"postgres": "ok", "redis": "ok"}
	ready := true
	if err := s.st.Ping(ctx); err != nil {
		checks["postgres"], ready = "unavailable", false
		s.log.Warn("readyz: postgres ping failed", zap.Error(err))
	}
	if err := s.redis.Ping(ctx).Err(); err != nil {
		checks["redis"], ready = "unavailable", false
		s.log.Warn("readyz: redis ping failed", zap.Error(err))
	}
	if !ready {
		return &Error{Status: http.StatusServiceUnavailable, Code: "not_ready", RetryAfter: unavailableRetryAfter,
			Message: fmt.Sprintf("postgres: %s; redis: %s", checks["postgres"], checks["redis"])}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": checks})
}
