// Command worker runs foiaflow's asynq server: one graph step per agent:step
// task under the case's advisory lock, reviewer decisions (agent:resume) and
// email sends (email:send).
//
//	worker [-migrate]   run (applying migrations first with -migrate)
//	worker migrate      apply migrations and exit
package main

import (
	"github.com/foiaflow/foiaflow/cmd/internal/app"
)

func main() {
	app.Main("worker", func(a *app.App) (app.Process, error) { return NewWorker(a) })
}
