// Command api serves foiaflow's HTTP API (package api): signed inbound-email
// webhooks, cases, the review queue, reviewer decisions, agent state,
// orphans, API keys, health, metrics and the asynqmon UI.
//
//	api [-migrate]   serve on API_ADDR (applying migrations first with -migrate)
//	api migrate      apply migrations and exit
//
// SIGINT/SIGTERM stop accepting connections and let in-flight requests
// finish (up to 15 s).
package main

import (
	"github.com/foiaflow/foiaflow/cmd/internal/app"
)

func main() {
	app.Main("api", func(a *app.App) (app.Process, error) { return NewAPI(a) })
}
