package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/foiaflow/foiaflow/store"
)

// Roles of API keys.
const (
	RoleAdmin    = "admin"    // everything, including API keys and /admin/queues
	RoleReviewer = "reviewer" // cases, review queue, decisions, orphans
)

// bootstrapAdminName is the actor name of the configured bootstrap key.
const bootstrapAdminName = "bootstrap-admin"

// keyPrefix marks foiaflow API keys so they are recognisable in logs and
// secret scanners.
const keyPrefix = "ffk_"

// Principal is the caller behind an API key.
type Principal struct {
	KeyID int64  // 0 for the bootstrap key
	Name  string // recorded as the actor of decisions
	Role  string // admin | reviewer
}

type principalKey struct{}

func withPrincipal(ctx context.Context, p Principal) context.Context {
	if info := requestInfoFrom(ctx); info != nil {
		info.actor = p.Name
	}
	return context.WithValue(ctx, principalKey{}, p)
}

// principalFrom returns the authenticated caller (zero outside auth).
func principalFrom(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey{}).(Principal)
	return p
}

// NewAPIKey returns a fresh plaintext key ("ffk_" + 64 hex digits of 32
// random bytes) and its stored hash.
func NewAPIKey() (plaintext, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("api key: %w", err)
	}
	plaintext = keyPrefix + hex.EncodeToString(b)
	return plaintext, HashAPIKey(plaintext), nil
}

// HashAPIKey is the stored form of a key: hex SHA-256 of the plaintext.
func HashAPIKey(plaintext string) string {
	sum := sha256.Sum256([]byte(plaintext))
	return hex.EncodeToString(sum[:])
}

// bearer extracts the key of "Authorization: Bearer <key>". HTTP Basic
// credentials are not accepted: a browser resends them on its own with
// every request to the origin, cross-site forms included (CSRF).
func bearer(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		if scheme, key, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(key)
		}
	}
	return ""
}

// authenticate resolves the request's Bearer key (Authenticate).
func (s *Server) authenticate(r *http.Request) (Principal, error) {
	return s.Authenticate(r, bearer(r))
}

// Authenticate resolves key as a request from r's source address would:
// the bootstrap admin key or an active stored key (the desk's sign-in uses
// it too). 401 unauthorized otherwise; 429 auth_throttled while the source
// address or the key has too many recent failures.
func (s *Server) Authenticate(r *http.Request, key string) (Principal, error) {
	ids := authIdentities(r, key)
	if wait := s.throttle.blocked(ids); wait > 0 {
		return Principal{}, errAuthThrottled(wait)
	}
	p, err := s.resolveKey(r, key)
	if err == errUnauthorized {
		s.throttle.fail(ids)
	}
	return p, err
}

// resolveKey looks key up: the bootstrap admin key or an active stored
// key; errUnauthorized otherwise.
func (s *Server) resolveKey(r *http.Request, key string) (Principal, error) {
	if key == "" || len(key) > 256 {
		return Principal{}, errUnauthorized
	}
	if b := s.cfg.BootstrapAdminKey; b != "" && subtle.ConstantTimeCompare([]byte(key), []byte(b)) == 1 {
		return Principal{Name: bootstrapAdminName, Role: RoleAdmin}, nil
	}
	k, err := s.st.APIKeyByHash(r.Context(), HashAPIKey(key))
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, errUnauthorized
	}
	if err != nil {
		return Principal{}, fmt.Errorf("authenticate: %w", err)
	}
	return Principal{KeyID: k.ID, Name: k.Name, Role: k.Role}, nil
}

// requireJSON answers 415 unless a POST, PUT or PATCH says it is JSON (an
// action without a body, such as a re-analysis, may send no Content-Type
// and no body at all). A browser can send a cross-site form or a
// text/plain POST without asking, but not application/json (that needs a
// CORS preflight this API never grants), so this closes request forgery on
// the key-authenticated JSON routes. Pages with their own sessions and
// CSRF tokens use their own routes.
func requireJSON(r *http.Request) error {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" && r.ContentLength == 0 {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil &&
		(mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return apiErr(http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type must be application/json, got %q", ct)
}
