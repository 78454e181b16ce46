package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/api"
	"github.com/foiaflow/foiaflow/cmd/internal/app"
	"github.com/foiaflow/foiaflow/web"
)

// shutdownTimeout is how long in-flight requests may finish after a signal.
const shutdownTimeout = 15 * time.Second

// API is the api process: the HTTP server over api.Server (the JSON API and,
// at "/", the reviewer desk of package web), listening on
// API_ADDR from construction (so Addr is known before Run).
type API struct {
	App    *app.App
	Server *api.Server
	HTTP   *http.Server
	// PProf serves net/http/pprof on API_PPROF_ADDR; nil when unset.
	PProf *http.Server
	ln    net.Listener
}

// NewAPI wires the API from an opened App and binds API_ADDR.
func NewAPI(a *app.App) (*API, error) {
	c := a.Config
	planner, err := a.Planner()
	if err != nil {
		return nil, err
	}
	blobs, err := a.Blobs(context.Background())
	if err != nil {
		return nil, err
	}
	spool, err := a.SpoolDir()
	if err != nil {
		return nil, err
	}
	ids, err := c.MailIDs()
	if err != nil {
		return nil, err
	}
	prices, err := c.Prices()
	if err != nil {
		return nil, err
	}
	srv, err := api.New(api.Config{MailIDs: ids, BootstrapAdminKey: c.BootstrapAdminKey, InboundRawSecret: c.InboundRawSecret,
		MailgunSigningKey: c.MailgunSigningKey, InboundMaxBytes: c.InboundMaxBytes, MessageMaxBytes: c.MessageMaxBytes,
		SpoolDir: spool, ReplayWindow: c.WebhookReplayWindow, DecisionsPerMinute: c.DecisionsPerMinute,
		AuthFailuresPerMinute: c.AuthFailuresPerMinute, MailDomain: c.MailDomain, MaxAdjustments: c.MaxAdjustments,
		Prices: prices},
		api.Deps{Store: a.Store, Queues: a.Queues, Dispatch: a.Dispatch, Redis: a.Redis, Log: a.Log.Named("api"),
			Planner: planner, Blobs: blobs})
	if err != nil {
		return nil, err
	}
	desk, err := web.New(web.Deps{API: srv, Store: a.Store, Log: a.Log.Named("desk")})
	if err != nil {
		srv.Close()
		return nil, err
	}
	srv.SetPages(desk.Handler())
	ln, err := net.Listen("tcp", c.APIAddr)
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("listen %s: %w", c.APIAddr, err)
	}
	if c.InboundRawSecret == "" && c.MailgunSigningKey == "" {
		a.Log.Warn("neither INBOUND_RAW_SECRET nor MAILGUN_SIGNING_KEY is set: every inbound email will be rejected")
	}
	if c.BootstrapAdminKey == "" {
		a.Log.Info("no API_BOOTSTRAP_ADMIN_KEY: only API keys stored in Postgres are accepted")
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, ErrorLog: zap.NewStdLog(a.Log.Named("http"))}
	m := &API{App: a, Server: srv, HTTP: hs, ln: ln}
	if c.APIPProfAddr != "" {
		mux := http.NewServeMux()
		app.PProfRoutes(mux)
		m.PProf = &http.Server{Addr: c.APIPProfAddr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	}
	return m, nil
}

// Addr is the bound address (useful with API_ADDR=127.0.0.1:0).
func (m *API) Addr() string { return m.ln.Addr().String() }

// Run serves until ctx ends, then shuts down gracefully: no new
// connections, in-flight requests get shutdownTimeout to finish.
func (m *API) Run(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- m.HTTP.Serve(m.ln) }()
	if m.PProf != nil {
		go func() {
			if err := m.PProf.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				m.App.Log.Error("pprof server", zap.Error(err))
			}
		}()
		defer m.PProf.Close()
	}
	m.App.Log.Info("api listening", zap.String("addr", m.Addr()))
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	m.App.Log.Info("api shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := m.HTTP.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// Close releases the server's Redis clients and the App.
func (m *API) Close() {
	m.Server.Close()
	_ = m.ln.Close()
	m.App.Close()
}
