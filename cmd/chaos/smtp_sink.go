package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/mail"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// sink is an in-process SMTP server that accepts everything and records the
// time of every delivery per Message-ID (the duplicate count of I5).
type sink struct {
	srv *smtp.Server
	ln  net.Listener

	mu         sync.Mutex
	deliveries map[string][]time.Time // Message-ID with <> → acceptance times
	noID       int
}

func startSink() (*sink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &sink{ln: ln, deliveries: map[string][]time.Time{}}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &sinkSession{s: s}, nil }))
	s.srv.Domain = "chaos-sink.local"
	s.srv.AllowInsecureAuth = true
	s.srv.ReadTimeout, s.srv.WriteTimeout = 30*time.Second, 30*time.Second
	s.srv.MaxMessageBytes = 10 << 20
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *sink) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

func (s *sink) close() { _ = s.srv.Close() }

func (s *sink) record(id string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		s.noID++
		return
	}
	s.deliveries[id] = append(s.deliveries[id], at)
}

// snapshot copies the deliveries.
func (s *sink) snapshot() (map[string][]time.Time, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string][]time.Time, len(s.deliveries))
	for k, v := range s.deliveries {
		out[k] = append([]time.Time(nil), v...)
	}
	return out, s.noID
}

type sinkSession struct{ s *sink }

func (*sinkSession) Reset()                               {}
func (*sinkSession) Logout() error                        { return nil }
func (*sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (*sinkSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (*sinkSession) AuthMechanisms() []string             { return nil }
func (ss *sinkSession) Data(r io.Reader) error {
	m, err := mail.ReadMessage(bufio.NewReader(r))
	if err != nil {
		return fmt.Errorf("sink: unreadable message: %w", err)
	}
	_, _ = io.Copy(io.Discard, m.Body)
	// The message counts as delivered once DATA is read: the acceptance
	// reply goes out when this returns.
	ss.s.record(strings.TrimSpace(m.Header.Get("Message-Id")), time.Now())
	return nil
}
