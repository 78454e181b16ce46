// Package fleet starts and stops the three foiaflow processes (api, worker,
// scheduler) built from this tree and talks to the API as a client would. The
// demo, bench, chaos and attack share it; it is wiring for cmd/ only.
package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Fleet is a set of foiaflow processes sharing one environment. Dir holds
// bin/ (the binaries) and logs/ (one log per slot). Each process runs in a
// named slot ("api", "worker", or "w1", "w2" for chaos's workers) and gets
// WORKER_ID=<slot>-<incarnation>; KillRestart starts a slot's next
// incarnation. Every process dies with the harness (StartChild); Left, when
// set, records each one so that the next run kills what a killed run left.
type Fleet struct {
	Dir  string
	Env  []string
	Left *Leftovers

	mu    sync.Mutex
	procs map[string]*proc
	order []string // slots in start order
}

// proc is one slot's current process.
type proc struct {
	slot, bin   string
	env         []string
	cmd         *exec.Cmd
	incarnation int
	done        chan struct{} // closed when cmd has exited; err is then set
	err         error
}

// Guard prepares a harness run whose state lives in dir: the harness dies
// with its parent (make), and what a previous killed run left (processes,
// scratch dirs recorded in dir/leftovers.json) is removed first. Call Done
// on the result after a clean stop.
func Guard(dir string) (*Leftovers, error) {
	if err := DieWithParent(); err != nil {
		fmt.Fprintln(os.Stderr, "warning:", err)
	}
	return Claim(filepath.Join(dir, "leftovers.json"), func(format string, args ...any) {
		fmt.Printf("==> cleanup: "+format+"\n", args...)
	})
}

// RandHex returns n random bytes hex-encoded.
func RandHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// FreePort asks the kernel for an unused loopback port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// RecreateDB drops (forcibly) and creates database name through adminURL.
func RecreateDB(ctx context.Context, adminURL, name string) error {
	c, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("connect %s: %w", adminURL, err)
	}
	defer c.Close(ctx)
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop %s: %w", name, err)
	}
	if _, err := c.Exec(ctx, "CREATE DATABASE "+ident); err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	return nil
}

// Build compiles api, worker and scheduler into Dir/bin and creates Dir/logs.
func (f *Fleet) Build(ctx context.Context) error {
	bin := filepath.Join(f.Dir, "bin")
	for _, d := range []string{bin, filepath.Join(f.Dir, "logs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin+string(os.PathSeparator), "./cmd/api", "./cmd/worker", "./cmd/scheduler")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	return nil
}

// Run executes a binary to completion (migrations).
func (f *Fleet) Run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(f.Dir, "bin", name), args...)
	cmd.Env = f.Env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %v: %w\n%s", name, args, err, out)
	}
	return nil
}

// Start launches binary name in the slot of the same name (Env plus env),
// its output in Dir/logs/<name>.log. It returns the process id.
func (f *Fleet) Start(name string, env ...string) (int, error) {
	return f.StartSlot(name, name, env...)
}

// StartSlot launches binary bin in slot with Env plus env; its output goes
// to Dir/logs/<slot>.log (truncated by the first incarnation, appended to
// after a header by later ones). It returns the process id. Starting a slot
// that is running is an error.
func (f *Fleet) StartSlot(slot, bin string, env ...string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.procs == nil {
		f.procs = map[string]*proc{}
	}
	p := f.procs[slot]
	if p == nil {
		p = &proc{slot: slot, bin: bin, env: env}
		f.procs[slot] = p
		f.order = append(f.order, slot)
	} else if p.running() {
		return 0, fmt.Errorf("start %s: already running (pid %d)", slot, p.cmd.Process.Pid)
	}
	if err := f.launch(p); err != nil {
		return 0, err
	}
	return p.cmd.Process.Pid, nil
}

// launch starts p's next incarnation.
func (f *Fleet) launch(p *proc) error {
	p.incarnation++
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if p.incarnation > 1 {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	logf, err := os.OpenFile(filepath.Join(f.Dir, "logs", p.slot+".log"), flags, 0o644)
	if err != nil {
		return err
	}
	if p.incarnation > 1 {
		fmt.Fprintf(logf, "\n===== %s incarnation %d at %s =====\n", p.slot, p.incarnation, time.Now().UTC().Format(time.RFC3339Nano))
	}
	cmd := exec.Command(filepath.Join(f.Dir, "bin", p.bin))
	cmd.Env = append(append(append([]string(nil), f.Env...), p.env...), fmt.Sprintf("WORKER_ID=%s-%d", p.slot, p.incarnation))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := StartChild(cmd); err != nil {
		logf.Close()
		return fmt.Errorf("start %s: %w", p.slot, err)
	}
	logf.Close() // the child holds its own descriptor
	done := make(chan struct{})
	p.cmd, p.done, p.err = cmd, done, nil
	go func() { p.err = cmd.Wait(); close(done) }()
	if f.Left != nil {
		if err := f.Left.AddProcess(p.slot, cmd.Process.Pid); err != nil {
			return fmt.Errorf("record %s: %w", p.slot, err)
		}
	}
	return nil
}

func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// KillRestart SIGKILLs slot's process, waits (10 s at most) for it to die
// and starts the slot's next incarnation. It returns the kill time and the
// pid killed.
func (f *Fleet) KillRestart(slot string) (time.Time, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.procs[slot]
	if p == nil {
		return time.Time{}, 0, fmt.Errorf("kill %s: no such slot", slot)
	}
	pid := p.cmd.Process.Pid
	at := time.Now()
	_ = syscall.Kill(pid, syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		return at, pid, fmt.Errorf("%s (pid %d) did not die after SIGKILL", slot, pid)
	}
	return at, pid, f.launch(p)
}

// Alive reports whether slot's current process is running.
func (f *Fleet) Alive(slot string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.procs[slot]
	return p != nil && p.running()
}

// Stop stops every process within 30 s (StopWithin).
func (f *Fleet) Stop() error { return f.StopWithin(30 * time.Second) }

// StopWithin sends SIGTERM to every running process and waits for a clean
// exit; a process still running after grace is SIGKILLed with its process
// group. It returns the first exit error or overrun, in start order. It is
// safe to call twice.
func (f *Fleet) StopWithin(grace time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var live []*proc
	for _, slot := range f.order {
		if p := f.procs[slot]; p.running() {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			live = append(live, p)
		}
	}
	var first error
	deadline := time.After(grace)
	for _, p := range live {
		select {
		case <-p.done:
			if p.err != nil && first == nil {
				first = fmt.Errorf("%s exited: %w", p.slot, p.err)
			}
		case <-deadline:
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			_ = p.cmd.Process.Kill()
			<-p.done
			if first == nil {
				first = fmt.Errorf("%s did not stop within %s", p.slot, grace)
			}
		}
	}
	return first
}

// WaitReady polls url until it answers 200 or ctx ends.
func WaitReady(ctx context.Context, url string) error {
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready: %w (last error %v)", url, ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
