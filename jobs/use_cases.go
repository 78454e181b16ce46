package jobs

import (
	"github.com/foiaflow/foiaflow/store"
)

// UseCases are the writes the API and the reviewer desk make (STYLE.md §14:
// both call the same functions, a page never opens a transaction). Each one
// owns its transaction and hands the committed outbox rows to Dispatch
// after commit (I2, I6).
type UseCases struct {
	Store    *store.Store
	Queues   Queues
	Dispatch *Dispatcher
}
