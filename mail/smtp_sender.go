package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// TLSPolicy says how the SMTP connection is encrypted (STARTTLS only;
// implicit TLS on port 465 is not supported).
type TLSPolicy string

// TLS policies.
const (
	TLSMandatory     TLSPolicy = "mandatory"     // STARTTLS required, fail otherwise (default)
	TLSOpportunistic TLSPolicy = "opportunistic" // STARTTLS when offered
	TLSNone          TLSPolicy = "none"          // never encrypt (local relays, tests)
)

// SMTPConfig configures an SMTPSender. It is filled from env in cmd/.
type SMTPConfig struct {
	Host string
	Port int // default 587
	// Username enables SMTP AUTH PLAIN when non-empty. With TLSNone the
	// password is sent in clear text (explicitly allowed); with the other
	// policies authentication fails rather than send it unencrypted, except
	// to localhost/127.0.0.1/::1 (as in net/smtp).
	Username  string
	Password  string
	TLS       TLSPolicy   // default TLSMandatory
	TLSConfig *tls.Config // optional (ServerName defaults to Host)
	HELO      string      // optional HELO/EHLO name
	// ConnectTimeout bounds the dial and each SMTP command (default 10s).
	ConnectTimeout time.Duration
	// SendTimeout bounds one whole Send: dial, STARTTLS, AUTH, MAIL, RCPT,
	// DATA, QUIT (default 60s). The caller's ctx deadline applies too.
	SendTimeout time.Duration
}

// SMTPSender sends through an SMTP relay with github.com/wneessen/go-mail,
// one connection per message. Safe for concurrent use.
type SMTPSender struct {
	cfg SMTPConfig
}

// NewSMTPSender validates cfg and fills defaults. It does not connect.
func NewSMTPSender(cfg SMTPConfig) (*SMTPSender, error) {
	if cfg.Host == "" {
		return nil, errors.New("smtp: no host")
	}
	if cfg.Port == 0 {
		cfg.Port = 587
	}
	if cfg.Port < 0 || cfg.Port > 65535 {
		return nil, fmt.Errorf("smtp: bad port %d", cfg.Port)
	}
	switch cfg.TLS {
	case "":
		cfg.TLS = TLSMandatory
	case TLSMandatory, TLSOpportunistic, TLSNone:
	default:
		return nil, fmt.Errorf("smtp: unknown TLS policy %q", cfg.TLS)
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	if cfg.SendTimeout <= 0 {
		cfg.SendTimeout = 60 * time.Second
	}
	return &SMTPSender{cfg: cfg}, nil
}

// Send delivers m. A nil error means the server accepted the message (250
// after DATA). The connection is closed when ctx is done, so a cancelled or
// expired ctx aborts the transaction. Errors: ErrInvalidOutbound from
// BuildMessage, or the transport error (see IsPermanent).
//
// The DESIGN.md I5 window: if the server accepted DATA but the connection
// broke before its reply reached us, Send returns an error although the
// message may be delivered; a resend carries the same Message-ID.
func (s *SMTPSender) Send(ctx context.Context, m Outbound) error {
	msg, err := newMsg(m)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.SendTimeout)
	defer cancel()
	client, err := gomail.NewClient(s.cfg.Host, s.options(ctx)...)
	if err != nil {
		return fmt.Errorf("smtp client: %w", err)
	}
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("smtp send %s: %w (%w)", m.MessageID, ctxErr, err)
		}
		return fmt.Errorf("smtp send %s: %w", m.MessageID, err)
	}
	return nil
}

func (s *SMTPSender) options(ctx context.Context) []gomail.Option {
	policy := map[TLSPolicy]gomail.TLSPolicy{
		TLSMandatory: gomail.TLSMandatory, TLSOpportunistic: gomail.TLSOpportunistic, TLSNone: gomail.NoTLS,
	}[s.cfg.TLS]
	opts := []gomail.Option{
		gomail.WithPort(s.cfg.Port),
		gomail.WithTLSPolicy(policy),
		gomail.WithTimeout(s.cfg.ConnectTimeout),
		gomail.WithDialContextFunc(dialUntilDone(ctx)),
	}
	tc := s.cfg.TLSConfig
	if tc == nil {
		tc = &tls.Config{ServerName: s.cfg.Host, MinVersion: tls.VersionTLS12}
	}
	opts = append(opts, gomail.WithTLSConfig(tc))
	if s.cfg.HELO != "" {
		opts = append(opts, gomail.WithHELO(s.cfg.HELO))
	}
	if s.cfg.Username != "" {
		auth := gomail.SMTPAuthPlain
		if s.cfg.TLS == TLSNone {
			auth = gomail.SMTPAuthPlainNoEnc
		}
		opts = append(opts, gomail.WithSMTPAuth(auth),
			gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password))
	}
	return opts
}

// dialUntilDone dials TCP and closes the connection when ctx is done:
// go-mail honours a context only while dialing, this makes it honour the
// send context for the whole SMTP transaction.
func dialUntilDone(ctx context.Context) gomail.DialContextFunc {
	return func(dialCtx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(dialCtx, network, addr)
		if err != nil {
			return nil, err
		}
		context.AfterFunc(ctx, func() { _ = conn.Close() })
		return conn, nil
	}
}

// IsPermanent reports whether a Send error will recur on every retry: an
// Outbound that cannot be rendered (ErrInvalidOutbound) or an SMTP 5xx
// rejection. Network errors, timeouts and 4xx replies are not permanent.
func IsPermanent(err error) bool {
	if errors.Is(err, ErrInvalidOutbound) {
		return true
	}
	var se *gomail.SendError
	if errors.As(err, &se) {
		code := se.ErrorCode()
		return code >= 500 && code < 600
	}
	return false
}
