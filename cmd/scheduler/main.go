// Command scheduler runs foiaflow's leader-elected loops: the follow-up due
// sweep (one time_based_followup run per case and due date), the outbox
// relay, the reaper of stranded runs (I6) and retention of step history.
// Run two for availability: one leads, the other stands by.
//
//	scheduler [-migrate]   run (applying migrations first with -migrate)
//	scheduler migrate      apply migrations and exit
package main

import (
	"github.com/foiaflow/foiaflow/cmd/internal/app"
)

func main() {
	app.Main("scheduler", func(a *app.App) (app.Process, error) { return NewScheduler(a), nil })
}
