package storetest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy is a TCP forwarder to the test Postgres that a test can cut, to
// see how code behaves when the database goes away (connections reset,
// new ones refused) without touching the shared server.
type Proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	cut    bool
}

// NewProxy listens on a loopback port and forwards to the host:port of
// DatabaseURL. It is closed when the test ends.
func NewProxy(t testing.TB) *Proxy {
	t.Helper()
	u, err := url.Parse(DatabaseURL())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: u.Host}
	go p.serve()
	t.Cleanup(p.Cut)
	return p
}

// URL is DatabaseURL pointed at the proxy.
func (p *Proxy) URL() string {
	u, _ := url.Parse(DatabaseURL())
	u.Host = p.ln.Addr().String()
	return u.String()
}

// Cut closes the listener (new connections are refused) and every
// forwarded connection.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	_ = p.ln.Close()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			_ = c.Close()
			_ = up.Close()
			return
		}
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
		go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
	}
}
