package main

import (
	"context"
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

// fleet is the three foiaflow processes started by the demo.
type fleet struct {
	dir   string
	env   []string
	procs []*exec.Cmd
}

// freePort asks the kernel for an unused loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// recreateDB drops and creates the demo database.
func recreateDB(ctx context.Context, adminURL, name string) error {
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

// build compiles the three binaries into dir/bin.
func (f *fleet) build(ctx context.Context) error {
	bin := filepath.Join(f.dir, "bin")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin+string(os.PathSeparator), "./cmd/api", "./cmd/worker", "./cmd/scheduler")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	return nil
}

// run executes a binary to completion (migrations).
func (f *fleet) run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(f.dir, "bin", name), args...)
	cmd.Env = f.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %v: %w\n%s", name, args, err, out)
	}
	return nil
}

// start launches a long-running binary with its log in dir/logs.
func (f *fleet) start(name string, env ...string) error {
	logf, err := os.Create(filepath.Join(f.dir, "logs", name+".log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(f.dir, "bin", name))
	cmd.Env = append(append([]string(nil), f.env...), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	f.procs = append(f.procs, cmd)
	return nil
}

// stop sends SIGTERM to every process and waits for a clean exit.
func (f *fleet) stop() error {
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
			if first == nil {
				first = fmt.Errorf("%s did not stop within 30s", filepath.Base(p.Path))
			}
		}
	}
	f.procs = nil
	return first
}

// waitReady polls url until it answers 200.
func waitReady(ctx context.Context, url string) error {
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
