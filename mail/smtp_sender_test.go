package mail_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/foiaflow/foiaflow/mail"
)

// delivery is one message the test SMTP server accepted.
type delivery struct {
	user string
	from string
	to   []string
	data []byte
}

// smtpBackend records deliveries; its function fields let a test reject
// or stall a transaction.
type smtpBackend struct {
	mu         sync.Mutex
	deliveries []delivery
	rcpt       func(to string) error
	data       func() error
}

func (b *smtpBackend) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &smtpSession{b: b}, nil
}

func (b *smtpBackend) delivered() []delivery {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]delivery(nil), b.deliveries...)
}

type smtpSession struct {
	b    *smtpBackend
	user string
	cur  delivery
}

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, username, password string) error {
		if username != "foiaflow" || password != "s3cret" {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "bad credentials"}
		}
		s.user = username
		return nil
	}), nil
}

func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	s.cur = delivery{user: s.user, from: from}
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.b.rcpt != nil {
		if err := s.b.rcpt(to); err != nil {
			return err
		}
	}
	s.cur.to = append(s.cur.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if s.b.data != nil {
		if err := s.b.data(); err != nil {
			return err
		}
	}
	s.cur.data = b
	s.b.mu.Lock()
	s.b.deliveries = append(s.b.deliveries, s.cur)
	s.b.mu.Unlock()
	return nil
}

func (s *smtpSession) Reset()        { s.cur = delivery{} }
func (s *smtpSession) Logout() error { return nil }

// startSMTP runs an in-process SMTP server on 127.0.0.1 and returns its
// backend and a config pointing at it (no TLS, AUTH PLAIN allowed in clear).
func startSMTP(t *testing.T) (*smtpBackend, mail.SMTPConfig) {
	t.Helper()
	be := &smtpBackend{}
	srv := smtp.NewServer(be)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln) //nolint:errcheck // returns on Close
	t.Cleanup(func() { srv.Close() })
	return be, mail.SMTPConfig{
		Host:           "127.0.0.1",
		Port:           ln.Addr().(*net.TCPAddr).Port,
		Username:       "foiaflow",
		Password:       "s3cret",
		TLS:            mail.TLSNone,
		ConnectTimeout: 5 * time.Second,
		SendTimeout:    10 * time.Second,
	}
}

func newSMTPSender(t *testing.T, cfg mail.SMTPConfig) *mail.SMTPSender {
	t.Helper()
	s, err := mail.NewSMTPSender(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSMTPSenderDelivers(t *testing.T) {
	t.Parallel()
	be, cfg := startSMTP(t)
	var s mail.Sender = newSMTPSender(t, cfg)
	m := sampleOutbound()
	m.To = append(m.To, "records.supervisor@austintexas.gov")
	if err := s.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	ds := be.delivered()
	if len(ds) != 1 {
		t.Fatalf("%d deliveries", len(ds))
	}
	d := ds[0]
	if d.user != "foiaflow" || d.from != "requests@foiaflow.org" {
		t.Errorf("auth user %q, MAIL FROM %q", d.user, d.from)
	}
	if strings.Join(d.to, ",") != "openrecords@austintexas.gov,records.supervisor@austintexas.gov" {
		t.Errorf("RCPT TO %v", d.to)
	}
	in, err := mail.ParseMIME(d.data, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if in.MessageID != m.MessageID {
		t.Errorf("Message-ID %q, want %q", in.MessageID, m.MessageID)
	}
	if in.InReplyTo != m.InReplyTo || len(in.References) != 2 {
		t.Errorf("In-Reply-To %q References %q", in.InReplyTo, in.References)
	}
	if in.Headers["Reply-To"] != "<requests+k7q2m9x4@foiaflow.org>" {
		t.Errorf("Reply-To %q", in.Headers["Reply-To"])
	}
	if in.Text != m.Text || in.HTML != m.HTML || in.Subject != m.Subject {
		t.Errorf("bodies/subject: %q %q %q", in.Text, in.HTML, in.Subject)
	}
	// What SMTP carried is what BuildMessage renders (and what FileSender writes).
	want, _ := mail.BuildMessage(m)
	if !bytes.Equal(bytes.TrimRight(d.data, "\r\n"), bytes.TrimRight(want, "\r\n")) {
		t.Errorf("SMTP data differs from BuildMessage:\n%s\n---\n%s", d.data, want)
	}
}

func TestSMTPSenderErrors(t *testing.T) {
	t.Parallel()
	be, cfg := startSMTP(t)
	be.rcpt = func(to string) error {
		switch {
		case strings.HasPrefix(to, "nobody@"):
			return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
		case strings.HasPrefix(to, "busy@"):
			return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"}
		}
		return nil
	}
	s := newSMTPSender(t, cfg)
	ctx := context.Background()

	m := sampleOutbound()
	m.To = []string{"nobody@austintexas.gov"}
	err := s.Send(ctx, m)
	if err == nil || !strings.Contains(err.Error(), "550") || !mail.IsPermanent(err) {
		t.Errorf("rejected recipient: err = %v, permanent = %v", err, mail.IsPermanent(err))
	}
	m.To = []string{"busy@austintexas.gov"}
	if err := s.Send(ctx, m); err == nil || mail.IsPermanent(err) {
		t.Errorf("4xx: err = %v, permanent = %v", err, mail.IsPermanent(err))
	}

	bad := cfg
	bad.Password = "wrong"
	if err := newSMTPSender(t, bad).Send(ctx, sampleOutbound()); err == nil {
		t.Error("bad password accepted")
	}
	mandatory := cfg
	mandatory.TLS = mail.TLSMandatory
	if err := newSMTPSender(t, mandatory).Send(ctx, sampleOutbound()); err == nil {
		t.Error("TLS mandatory but server offers no STARTTLS: sent anyway")
	}
	invalid := sampleOutbound()
	invalid.MessageID = ""
	if err := s.Send(ctx, invalid); !errors.Is(err, mail.ErrInvalidOutbound) || !mail.IsPermanent(err) {
		t.Errorf("invalid outbound: %v", err)
	}
	if n := len(be.delivered()); n != 0 {
		t.Errorf("%d deliveries, want 0", n)
	}

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := cfg
	unreachable.Port = closed.Addr().(*net.TCPAddr).Port
	closed.Close()
	if err := newSMTPSender(t, unreachable).Send(ctx, sampleOutbound()); err == nil || mail.IsPermanent(err) {
		t.Errorf("connection refused: err = %v, permanent = %v", err, mail.IsPermanent(err))
	}
}

// A cancelled context aborts a transaction the server is stalling.
func TestSMTPSenderHonoursContext(t *testing.T) {
	t.Parallel()
	be, cfg := startSMTP(t)
	inData := make(chan struct{})
	release := make(chan struct{})
	be.data = func() error {
		close(inData)
		<-release
		return &smtp.SMTPError{Code: 451, Message: "too late"}
	}
	t.Cleanup(func() { close(release) })
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- newSMTPSender(t, cfg).Send(ctx, sampleOutbound()) }()
	<-inData
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Send did not return after cancel")
	}
}

func TestNewSMTPSenderValidates(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]mail.SMTPConfig{
		"no host":    {Port: 25},
		"bad port":   {Host: "x", Port: 70000},
		"bad policy": {Host: "x", TLS: "sometimes"},
	} {
		if _, err := mail.NewSMTPSender(cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := mail.NewSMTPSender(mail.SMTPConfig{Host: "smtp.example.org"}); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
