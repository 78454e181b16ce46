package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
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

// bearer extracts the key of "Authorization: Bearer <key>", or of HTTP
// Basic auth's password (browsers opening /admin/queues).
func bearer(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		if scheme, key, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(key)
		}
	}
	if _, pw, ok := r.BasicAuth(); ok {
		return pw
	}
	return ""
}

// authenticate resolves the request's key: the bootstrap admin key, or an
// active stored key. 401 unauthorized otherwise.
func (s *Server) authenticate(r *http.Request) (Principal, error) {
	key := bearer(r)
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
