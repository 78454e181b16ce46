package api

import (
	"net/http"

	"go.uber.org/zap"
)

// access says who may call a route.
type access int

const (
	public   access = iota // no credentials (/healthz, /readyz)
	signed                 // webhook: authenticated by its signature, not a key
	reviewer               // any active API key (reviewer or admin)
	admin                  // an admin key
)

// handlerFunc is a handler that reports failure as an error, written by
// wrap in the one error shape.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// route is one entry of the route table; exactly one of fn and h is set.
type route struct {
	pattern string // http.ServeMux pattern, "METHOD /path/{wildcard}"
	access  access
	fn      handlerFunc
	h       http.Handler
}

// adminQueuesPath is where asynqmon is mounted (admin only).
const adminQueuesPath = "/admin/queues"

// routes is the route table; openapi_test.go keeps openapi.json equal to it.
func (s *Server) routes() []route {
	return []route{
		{pattern: "GET /healthz", access: public, fn: s.healthz},
		{pattern: "GET /readyz", access: public, fn: s.readyz},
		{pattern: "GET /metrics", access: reviewer, h: s.metricsHandler()},
		{pattern: "GET /openapi.json", access: reviewer, fn: serveOpenAPI},
		{pattern: adminQueuesPath + "/", access: admin, h: s.monitor},

		{pattern: "POST /v1/inbound/email", access: signed, fn: s.inboundEmail},
		{pattern: "GET /v1/inbound/{id}", access: reviewer, fn: s.getInbound},

		{pattern: "POST /v1/api-keys", access: admin, fn: s.createAPIKey},
		{pattern: "GET /v1/api-keys", access: admin, fn: s.listAPIKeys},
		{pattern: "DELETE /v1/api-keys/{id}", access: admin, fn: s.revokeAPIKey},

		{pattern: "POST /v1/cases", access: reviewer, fn: s.createCase},
		{pattern: "GET /v1/cases", access: reviewer, fn: s.listCases},
		{pattern: "GET /v1/cases/{id}", access: reviewer, fn: s.getCase},
		{pattern: "PATCH /v1/cases/{id}", access: reviewer, fn: s.patchCase},
		{pattern: "GET /v1/cases/{id}/agent-state", access: reviewer, fn: s.agentState},
		{pattern: "GET /v1/cases/{id}/messages", access: reviewer, fn: s.caseMessages},
		{pattern: "GET /v1/cases/{id}/timeline", access: reviewer, fn: s.caseTimeline},
		{pattern: "GET /v1/cases/{id}/events", access: reviewer, fn: s.caseEvents},
		{pattern: "GET /v1/attachments/{id}", access: reviewer, fn: s.getAttachment},
		{pattern: "GET /v1/messages/{id}/raw", access: reviewer, fn: s.getRawMessage},
		{pattern: "POST /v1/admin/messages/{id}/reanalyze", access: admin, fn: s.reanalyzeMessage},
		{pattern: "GET /v1/admin/reanalyses/{id}", access: admin, fn: s.getReanalysis},
		{pattern: "POST /v1/runs/{id}/fork", access: admin, fn: s.forkRun},
		{pattern: "POST /v1/cases/{caseId}/proposals/{proposalId}/{action}", access: reviewer, fn: s.decide},

		{pattern: "GET /v1/proposals", access: reviewer, fn: s.listProposals},
		{pattern: "GET /v1/proposals/{id}", access: reviewer, fn: s.getProposal},

		{pattern: "GET /v1/escalations", access: reviewer, fn: s.listEscalations},
		{pattern: "POST /v1/escalations/{id}/assign", access: reviewer, fn: s.assignEscalation},
		{pattern: "POST /v1/escalations/{id}/resolve", access: reviewer, fn: s.resolveEscalation},

		{pattern: "GET /v1/costs", access: reviewer, fn: s.getCosts},
		{pattern: "GET /v1/audit", access: admin, fn: s.getAudit},

		{pattern: "GET /v1/orphans", access: reviewer, fn: s.listOrphans},
		{pattern: "POST /v1/orphans/{id}/assign", access: reviewer, fn: s.assignOrphan},
	}
}

// wrap adds the JSON content-type rule (requireJSON), authentication with
// throttling of failures, and role checks to a key-authenticated route,
// and writes a handler's error in the one error shape (internal errors are
// logged with their cause and answered with a generic message).
func (s *Server) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt.access == reviewer || rt.access == admin {
			p, err := s.authenticate(r)
			if err == nil && rt.access == admin && p.Role != RoleAdmin {
				err = errForbidden
			}
			if err == nil {
				err = requireJSON(r)
			}
			if err != nil {
				s.fail(w, r, err)
				return
			}
			r = r.WithContext(withPrincipal(r.Context(), p))
		}
		if rt.h != nil {
			rt.h.ServeHTTP(w, r)
			return
		}
		if err := rt.fn(w, r); err != nil {
			s.fail(w, r, err)
		}
	})
}

// fail writes err and logs internal errors (and the hidden cause of a 503).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	ae, known := toAPIError(err)
	switch {
	case !known && ae.Status == http.StatusServiceUnavailable:
		s.log.Warn("request failed: dependency unavailable", zap.String("method", r.Method), zap.String("path", r.URL.Path), zap.Error(err))
	case !known:
		s.log.Error("request failed", zap.String("method", r.Method), zap.String("path", r.URL.Path), zap.Error(err))
	}
	if info := requestInfoFrom(r.Context()); info != nil {
		info.errCode = ae.Code
	}
	writeError(w, ae)
}
