package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/foiaflow/foiaflow/store"
)

// createAPIKeyRequest is the body of POST /v1/api-keys.
type createAPIKeyRequest struct {
	Name string `json:"name"` // 1–100 characters; recorded as the actor of decisions
	Role string `json:"role"` // admin | reviewer
}

// createdAPIKey is the answer of POST /v1/api-keys: the only time the
// plaintext key is shown.
type createdAPIKey struct {
	store.APIKey
	Key string `json:"key"`
}

// createAPIKey: POST /v1/api-keys (admin) → 201 with the plaintext key.
func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var req createAPIKeyRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	if req.Name == "" || len(req.Name) > 100 {
		return apiErr(http.StatusBadRequest, "invalid_name", "name must be 1–100 characters")
	}
	if req.Role != RoleAdmin && req.Role != RoleReviewer {
		return apiErr(http.StatusBadRequest, "invalid_role", "role must be %q or %q", RoleAdmin, RoleReviewer)
	}
	plain, hash, err := NewAPIKey()
	if err != nil {
		return err
	}
	k, err := s.st.CreateAPIKey(r.Context(), req.Name, req.Role, hash)
	if err != nil {
		return fmt.Errorf("create api key: %w", err)
	}
	writeJSON(w, http.StatusCreated, createdAPIKey{APIKey: k, Key: plain})
	return nil
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
	writeJSON(w, http.StatusOK, map[string]any{"api_keys": keys})
	return nil
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
