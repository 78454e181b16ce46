package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
)

// requestInfo is filled in while a request is served and read by observe
// afterwards (the route wrapper runs on a derived request).
type requestInfo struct {
	actor   string
	errCode string
}

type requestInfoKey struct{}

func requestInfoFrom(ctx context.Context) *requestInfo {
	i, _ := ctx.Value(requestInfoKey{}).(*requestInfo)
	return i
}

// headerRequestID carries a caller's request id, or the one generated for
// the request; it is echoed on the response and logged.
const headerRequestID = "X-Request-ID"

// requestID returns the caller's X-Request-ID when it is short and
// printable, else 16 random hex digits.
func requestID(r *http.Request) string {
	if id := r.Header.Get(headerRequestID); id != "" && len(id) <= 64 &&
		strings.IndexFunc(id, func(c rune) bool { return c < 0x21 || c > 0x7e }) < 0 {
		return id
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// requestTimeout bounds the work of one request (database and Redis calls
// run under the request context).
const requestTimeout = 30 * time.Second

// observe logs every request (zap) and records the HTTP metrics, labelled by
// the matched route pattern (r.Pattern, set by the mux) rather than the
// path, so ids do not explode label cardinality.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := s.now()
		info := &requestInfo{}
		ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
		defer cancel()
		r = r.WithContext(context.WithValue(ctx, requestInfoKey{}, info))
		rid := requestID(r)
		w.Header().Set(headerRequestID, rid)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		elapsed := s.now().Sub(start)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		s.http.requests.WithLabelValues(route, strconv.Itoa(sw.status)).Inc()
		s.http.duration.WithLabelValues(route).Observe(elapsed.Seconds())
		fields := []zap.Field{zap.String("request_id", rid), zap.String("method", r.Method), zap.String("route", route), zap.String("path", r.URL.Path),
			zap.Int("status", sw.status), zap.Int64("bytes", sw.bytes), zap.Duration("duration", elapsed.Round(time.Microsecond))}
		if info.actor != "" {
			fields = append(fields, zap.String("actor", info.actor))
		}
		if info.errCode != "" {
			fields = append(fields, zap.String("error_code", info.errCode))
		}
		s.log.Info("http request", fields...)
	})
}
