package api

import (
	"context"
	"net/http"
	"strings"
)

// The reviewer desk (package web) serves its pages from the same process
// and calls the use cases of this file and of Decide, CaseDetail,
// AgentState and CaseMessages: one decision path for the JSON API and the
// pages.

// SetPages routes every request outside the JSON API (paths not under
// /v1/, /admin/, /healthz, /readyz, /metrics, /openapi.json) to h, behind
// the same request logs and metrics. Call it before serving.
func (s *Server) SetPages(h http.Handler) { s.pages = h }

// apiPath reports whether p belongs to the JSON API (its 404s are JSON).
func apiPath(p string) bool {
	for _, pre := range []string{"/v1/", "/admin/"} {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	switch p {
	case "/healthz", "/readyz", "/metrics", "/openapi.json":
		return true
	}
	return false
}

// ServeAttachment serves attachment {id} of r's path as GET
// /v1/attachments/{id} does; errors are written in the API's error shape.
// The caller has authenticated the request.
func (s *Server) ServeAttachment(w http.ResponseWriter, r *http.Request) {
	if err := s.getAttachment(w, r); err != nil {
		s.fail(w, r, err)
	}
}

// ServeRawMessage serves message {id} of r's path as GET
// /v1/messages/{id}/raw does (the caller has authenticated the request).
func (s *Server) ServeRawMessage(w http.ResponseWriter, r *http.Request) {
	if err := s.getRawMessage(w, r); err != nil {
		s.fail(w, r, err)
	}
}

// ErrorOf classifies err as the JSON API would answer it: the status, the
// stable code and a message safe to show (an internal error is logged here
// with its cause and shown as "internal error").
func (s *Server) ErrorOf(ctx context.Context, err error) *Error {
	ae, known := toAPIError(err)
	if !known {
		s.log.Error("desk request failed: " + err.Error())
	}
	return ae
}
