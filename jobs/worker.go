package jobs

import (
	"time"

	"github.com/hibiken/asynq"
	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/inbound"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// WorkerDeps are what a worker's handlers need: cmd/worker builds them from
// configuration, tests from their fixtures.
type WorkerDeps struct {
	Store *store.Store
	// Deps are the FOIA graph's dependencies; NewWorker builds the graph
	// from them, and resumes read the routing policy from them.
	Deps     *workflow.Deps
	Dispatch *Dispatcher
	Queues   Queues
	// WorkerID names the worker on the runs it holds.
	WorkerID string
	Sender   mail.Sender
	Log      *zap.Logger
	// Inbound parses inbound mail and re-analyses replies; nil leaves
	// inbound:parse and inbound:reanalyze tasks queued.
	Inbound *inbound.Processor
	// ObserveStep is told about each executed step (metrics). May be nil.
	ObserveStep StepObserver
	// OnSent is called after a send is recorded (metrics). May be nil.
	OnSent func(caseID int64, latency time.Duration)
	// WebhookURL receives escalation notices and the daily stale digest,
	// signed with WebhookSecret; "" leaves those tasks queued.
	WebhookURL    string
	WebhookSecret []byte
}

// Worker holds a worker's task handlers, one per task kind; a nil handler
// leaves its tasks queued.
type Worker struct {
	Step   *AgentStepHandler
	Resume *AgentResumeHandler
	Email  *EmailSendHandler
	Parse  *InboundParseHandler
	// Reanalyze runs admin re-analyses.
	Reanalyze *InboundReanalyzeHandler
	// EscalationNotify posts escalation notices to the webhook.
	EscalationNotify *EscalationNotifyHandler
	// StaleDigest posts the daily digest of stale proposals to the same
	// webhook.
	StaleDigest *StaleDigestHandler
}

// NewWorker assembles the handlers of every task kind from d: the one place
// a task kind is bound to its handler and the handler to its dependencies.
func NewWorker(d WorkerDeps) *Worker {
	step := &AgentStepHandler{Store: d.Store, Graph: workflow.NewCaseGraph(d.Deps), Dispatch: d.Dispatch,
		Queues: d.Queues, WorkerID: d.WorkerID, Log: d.Log.Named("step"), Observe: d.ObserveStep}
	w := &Worker{Step: step, Resume: &AgentResumeHandler{Step: step, Deps: d.Deps},
		Email: &EmailSendHandler{Store: d.Store, Sender: d.Sender, Log: d.Log.Named("email"), OnSent: d.OnSent}}
	if d.Inbound != nil {
		w.Parse = &InboundParseHandler{Proc: d.Inbound, Dispatch: d.Dispatch, Log: d.Log.Named("inbound")}
		w.Reanalyze = &InboundReanalyzeHandler{Proc: d.Inbound, Analyzer: d.Deps.Analyzer, Log: d.Log.Named("inbound")}
	}
	if d.WebhookURL != "" {
		hook := Webhook{URL: d.WebhookURL, Secret: d.WebhookSecret}
		w.EscalationNotify = &EscalationNotifyHandler{Store: d.Store, Webhook: hook}
		w.StaleDigest = &StaleDigestHandler{Store: d.Store, Webhook: hook}
	}
	return w
}

// Mux routes task types to the handlers that are set.
func (w *Worker) Mux() *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.Handle(TypeAgentStep, w.Step)
	mux.Handle(TypeAgentResume, w.Resume)
	mux.Handle(TypeEmailSend, w.Email)
	if w.Parse != nil {
		mux.Handle(TypeInboundParse, w.Parse)
	}
	if w.Reanalyze != nil {
		mux.Handle(TypeInboundReanalyze, w.Reanalyze)
	}
	if w.EscalationNotify != nil {
		mux.Handle(TypeEscalationNotify, w.EscalationNotify)
	}
	if w.StaleDigest != nil {
		mux.Handle(TypeStaleDigest, w.StaleDigest)
	}
	return mux
}
