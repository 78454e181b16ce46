// Package api is foiaflow's HTTP surface (DESIGN.md "Processes": api): the
// signed inbound-email webhooks, cases, the review queue of proposals and
// their versions, reviewer decisions (seed 000 §6.1, validated before
// anything is enqueued: I7), agent state, orphans, API keys, health,
// Prometheus metrics, the asynqmon UI and the OpenAPI document.
//
// Every error is one JSON shape, {"error":{"code","message"}}, and domain
// errors map to statuses in one table (errors.go). Every request body is
// size-limited and validated before storage; a rejected request leaves no
// rows behind (I8). Writes that start work commit their outbox rows in the
// same transaction and dispatch them after commit (I2, I6): a dispatch
// failure is not a request failure, the scheduler's relay heals it.
package api
