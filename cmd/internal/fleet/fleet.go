// Package fleet starts and stops the three foiaflow processes (api, worker,
// scheduler) built from this tree and talks to the API as a client would. The
// demo and the bench share it; it is wiring for cmd/ only.
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
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Fleet is a set of foiaflow processes sharing one environment. Dir holds
// bin/ (the binaries) and logs/ (one log per process). Every process dies
// with the harness (StartChild); Left, when set, records each one so that
// the next run kills what a killed run left.
type Fleet struct {
	Dir   string
	Env   []string
	Left  *Leftovers
	procs []*exec.Cmd
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

// Start launches a long-running binary with Env plus env, its output in
// Dir/logs/<name>.log. It returns the process id.
func (f *Fleet) Start(name string, env ...string) (int, error) {
	logf, err := os.Create(filepath.Join(f.Dir, "logs", name+".log"))
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(filepath.Join(f.Dir, "bin", name))
	cmd.Env = append(append([]string(nil), f.Env...), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := StartChild(cmd); err != nil {
		logf.Close()
		return 0, fmt.Errorf("start %s: %w", name, err)
	}
	logf.Close() // the child holds its own descriptor
	f.procs = append(f.procs, cmd)
	if f.Left != nil {
		if err := f.Left.AddProcess(name, cmd.Process.Pid); err != nil {
			return cmd.Process.Pid, fmt.Errorf("record %s: %w", name, err)
		}
	}
	return cmd.Process.Pid, nil
}

// Stop sends SIGTERM to every process and waits (30 s at most each, then
// SIGKILL) for a clean exit. It is safe to call twice.
func (f *Fleet) Stop() error {
	var first error
	for _, p := range f.procs {
		_ = p.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range f.procs {
		done := make(chan error, 1)
		go func() { done <- p.Wait() }()
		select {
		case err := <-done:
			if err != nil && first == nil {
				first = fmt.Errorf("%s exited: %w", filepath.Base(p.Path), err)
			}
		case <-time.After(30 * time.Second):
			_ = p.Process.Kill()
			<-done
			if first == nil {
				first = fmt.Errorf("%s did not stop within 30s", filepath.Base(p.Path))
			}
		}
	}
	f.procs = nil
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
