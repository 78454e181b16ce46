package web

import (
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/api"
	"github.com/foiaflow/foiaflow/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// SessionTTL is how long a desk session lasts after sign-in.
const SessionTTL = 12 * time.Hour

// Deps are the desk's collaborators, built in cmd/api.
type Deps struct {
	API   *api.Server  // the use cases shared with the JSON API
	Store *store.Store // sessions and the queue's read models
	Log   *zap.Logger
	// Now is the clock (UTC); nil means time.Now.
	Now func() time.Time
}

// Desk serves the reviewer pages. Build it with New and mount Handler
// with api.Server.SetPages.
type Desk struct {
	api   *api.Server
	st    *store.Store
	log   *zap.Logger
	now   func() time.Time
	pages map[string]*template.Template
	mux   *http.ServeMux
}

// pageNames are the templates under templates/, each rendered inside
// layout.html.
var pageNames = []string{"signin", "queue", "case", "escalations", "error"}

// New parses the embedded templates and builds the routes.
func New(d Deps) (*Desk, error) {
	if d.API == nil || d.Store == nil || d.Log == nil {
		return nil, errors.New("web: API, Store and Log are required")
	}
	k := &Desk{api: d.API, st: d.Store, log: d.Log, now: d.Now, pages: map[string]*template.Template{}, mux: http.NewServeMux()}
	if k.now == nil {
		k.now = time.Now
	}
	for _, name := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		k.pages[name] = t
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	k.mux.Handle("GET /static/", http.StripPrefix("/static/", staticFiles(http.FileServerFS(static))))
	k.mux.HandleFunc("GET /signin", k.signInPage)
	k.mux.HandleFunc("POST /signin", k.signIn)
	k.mux.Handle("POST /signout", k.session(k.signOut))
	k.mux.Handle("GET /{$}", k.session(k.queue))
	k.mux.Handle("GET /cases/{id}", k.session(k.casePage))
	k.mux.Handle("GET /cases/{id}/events", k.session(k.caseEvents))
	k.mux.Handle("POST /cases/{caseId}/proposals/{proposalId}/decide", k.session(k.decide))
	k.mux.Handle("GET /escalations", k.session(k.escalations))
	k.mux.Handle("POST /escalations/{id}/{op}", k.session(k.changeEscalation))
	k.mux.Handle("GET /records/attachments/{id}", k.session(k.attachment))
	k.mux.Handle("GET /records/messages/{id}/raw", k.session(k.rawMessage))
	return k, nil
}

// Handler serves the pages with the desk's security headers.
func (k *Desk) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'")
		k.mux.ServeHTTP(w, r)
	})
}

// staticFiles adds a short cache lifetime to the embedded assets.
func staticFiles(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		h.ServeHTTP(w, r)
	})
}

// render writes page name with status; a template error is logged (the
// status line has been written by then).
func (k *Desk) render(w http.ResponseWriter, status int, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := k.pages[name].Execute(w, data); err != nil {
		k.log.Error("render page", zap.String("page", name), zap.Error(err))
	}
}

// errorPage shows a refusal or a failure as a page with its status.
func (k *Desk) errorPage(w http.ResponseWriter, r *http.Request, status int, title, message string) {
	k.render(w, status, "error", page{Title: title, Session: sessionFrom(r.Context()),
		Error: message})
}

// page is what layout.html needs from every page; pages embed it.
type page struct {
	Title   string
	Session *store.WebSession // nil when signed out
	Nav     string            // queue | escalations
	Error   string            // a banner saying what went wrong
	Notice  string            // a banner saying what happened
}
