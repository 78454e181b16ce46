package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"

	"github.com/foiaflow/foiaflow/store"
)

// createAPIKeyRequest is the body of POST /v1/api-keys.
type createAPIKeyRequest struct {
	// Name is recorded as the actor of decisions: 1–100 printable
	// characters, unique among active keys (case-insensitive).
	Name string `json:"name"`
	Role string `json:"role"` // admin | reviewer
}

// createdAPIKey is the answer of POST /v1/api-keys: the only time the
// plaintext key is shown.
type createdAPIKey struct {
	store.APIKey
	Key string `json:"key"`
}

// createAPIKey: POST /v1/api-keys (admin) → 201 with the plaintext key;
// 409 name_taken when an active key (or the bootstrap key) has the name.
func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var req createAPIKeyRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	if req.Name == "" || len(req.Name) > 100 || strings.IndexFunc(req.Name, unicode.IsControl) >= 0 {
		return apiErr(http.StatusBadRequest, "invalid_name", "name must be 1–100 printable characters")
	}
	if strings.EqualFold(req.Name, bootstrapAdminName) {
		return errNameTaken(req.Name)
	}
	if req.Role != RoleAdmin && req.Role != RoleReviewer {
		return apiErr(http.StatusBadRequest, "invalid_role", "role must be %q or %q", RoleAdmin, RoleReviewer)
	}
	plain, hash, err := NewAPIKey()
	if err != nil {
		return err
	}
	k, err := s.st.CreateAPIKey(r.Context(), req.Name, req.Role, hash)
	if errors.Is(err, store.ErrConflict) {
		return errNameTaken(req.Name)
	}
	if err != nil {
		return fmt.Errorf("create api key: %w", err)
	}
	return writeJSON(w, http.StatusCreated, createdAPIKey{APIKey: k, Key: plain})
}

func errNameTaken(name string) *Error {
	return apiErr(http.StatusConflict, "name_taken", "an active API key is already named %q: revoke it first or choose another name", name)
}

// listAPIKeys: GET /v1/api-keys (admin) → the keys without secrets.
func (s *Server) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.st.ListAPIKeys(r.Context())
	if err != nil {
		return fmt.Errorf("list api keys: %w", err)
	}
	if keys == nil {
		keys = []store.APIKey{}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"api_keys": keys})
}

// revokeAPIKey: DELETE /v1/api-keys/{id} (admin) → 204; 404
// api_key_not_found when unknown or already revoked.
func (s *Server) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	err = s.st.RevokeAPIKey(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return apiErr(http.StatusNotFound, "api_key_not_found", "no active API key %d", id)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
