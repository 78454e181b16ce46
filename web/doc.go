// Package web is the reviewer's desk (issue 12): server-rendered pages,
// served by cmd/api at "/", for the review queue, a case (messages,
// analyses with their evidence highlighted, deadlines, the run's steps, the
// proposal with its versions, diffs and the decision form) and the open
// escalations.
//
// A reviewer signs in with an API key, which is exchanged for a session
// cookie (HttpOnly, SameSite=Strict, Secure over TLS); the session is stored
// server-side by the SHA-256 of its id (store.WebSession) and carries a
// CSRF token that every form sends back (a POST without it is 403). The
// key's role decides who may decide, and its name is recorded as the
// reviewer of every decision.
//
// The pages own no business rules: decisions go through api.Server.Decide,
// the case through api.Server.CaseDetail, AgentState and CaseMessages, the
// same code the JSON API runs; the case page follows the case's live
// events (api.Server.StreamCaseEvents) with a few lines of script. Templates and assets are embedded (go:embed);
// there is no front-end build.
package web
