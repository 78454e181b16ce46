package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	sharedfleet "github.com/foiaflow/foiaflow/cmd/internal/fleet"
)

// pgBinDir finds initdb/postgres: the machine's Postgres 15 first, then PATH.
func pgBinDir() (string, error) {
	for _, d := range []string{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"} {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	p, err := exec.LookPath("postgres")
	if err != nil {
		return "", fmt.Errorf("no postgres binary found (install postgresql): %w", err)
	}
	return filepath.Dir(p), nil
}

// privatePG is a throwaway Postgres cluster in a temp dir on its own port,
// so restarting it never touches the shared instance on 5432. The
// postmaster runs in the foreground as a direct child of chaos (not
// daemonized by pg_ctl), so that it dies with chaos (fleet.StartChild) and
// its backends follow it.
type privatePG struct {
	bin, dir, data string
	port           int
	cred           *syscall.Credential // the postgres user when we are root
	left           *sharedfleet.Leftovers
	cmd            *exec.Cmd
	done           chan struct{}
}

// startPG initdbs dir/pg and starts it on port with trust auth and settings
// for a disposable test cluster (fsync off; synchronous_commit stays on so
// an acknowledged commit survives a restart).
func startPG(ctx context.Context, dir string, port int, left *sharedfleet.Leftovers) (*privatePG, error) {
	bin, err := pgBinDir()
	if err != nil {
		return nil, err
	}
	p := &privatePG{bin: bin, dir: dir, data: filepath.Join(dir, "pg"), port: port, left: left}
	if os.Geteuid() == 0 { // initdb and postgres refuse to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs a postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.MkdirAll(p.data, 0o700); err != nil {
			return nil, err
		}
		for _, d := range []string{dir, p.data} {
			if err := os.Chown(d, uid, gid); err != nil {
				return nil, err
			}
		}
	}
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", p.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	return p, p.start(ctx)
}

// start runs the postmaster in the foreground and waits until it accepts
// connections.
func (p *privatePG) start(ctx context.Context) error {
	logf, err := os.OpenFile(filepath.Join(p.dir, "postgres.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child holds its own descriptor
	cmd := exec.Command(filepath.Join(p.bin, "postgres"), "-D", p.data, "-p", strconv.Itoa(p.port), "-k", p.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300", "-c", "shared_buffers=64MB")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	if err := sharedfleet.StartChild(cmd); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	p.cmd, p.done = cmd, done
	if err := p.left.AddProcess("postgres", cmd.Process.Pid); err != nil {
		return err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := pgx.Connect(ctx, p.url("postgres", "chaos-ready"))
		if err == nil {
			c.Close(ctx)
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("postgres exited while starting (see %s)", filepath.Join(p.dir, "postgres.log"))
		case <-ctx.Done():
			return fmt.Errorf("postgres not ready: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready after 60s: %w", err)
		}
	}
}

// shutdown stops the postmaster with mode (smart, fast or immediate: SIGTERM,
// SIGINT or SIGQUIT, as pg_ctl -m sends them) and waits for it to exit,
// SIGKILLing it after 60 s.
func (p *privatePG) shutdown(mode string) error {
	sig := map[string]syscall.Signal{"smart": syscall.SIGTERM, "fast": syscall.SIGINT, "immediate": syscall.SIGQUIT}[mode]
	if sig == 0 {
		return fmt.Errorf("unknown shutdown mode %q (smart, fast or immediate)", mode)
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
		return nil
	case <-time.After(60 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("postgres did not stop within 60s (-m %s); killed", mode)
	}
}

// restart stops the cluster with mode and starts it again.
func (p *privatePG) restart(ctx context.Context, mode string) error {
	if err := p.shutdown(mode); err != nil {
		return err
	}
	return p.start(ctx)
}

// url is the connection URL of database db with an application_name.
func (p *privatePG) url(db, app string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&application_name=%s", p.port, db, app)
}

// stop shuts the cluster down immediately (teardown).
func (p *privatePG) stop() {
	if p.cmd == nil {
		return
	}
	if err := p.shutdown("immediate"); err != nil {
		fmt.Fprintln(os.Stderr, "chaos: stopping private postgres:", err)
	}
}

// privateRedis is a redis-server child on its own port with no persistence.
type privateRedis struct {
	cmd  *exec.Cmd
	addr string
}

func startRedis(ctx context.Context, dir string, port int, left *sharedfleet.Leftovers) (*privateRedis, error) {
	logf, err := os.Create(filepath.Join(dir, "redis.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--daemonize", "no", "--dir", dir)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := sharedfleet.StartChild(cmd); err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	r := &privateRedis{cmd: cmd, addr: fmt.Sprintf("127.0.0.1:%d", port)}
	if err := left.AddProcess("redis-server", cmd.Process.Pid); err != nil {
		r.stop()
		return nil, err
	}
	c := redis.NewClient(&redis.Options{Addr: r.addr})
	defer c.Close()
	for {
		if err := c.Ping(ctx).Err(); err == nil {
			return r, nil
		}
		select {
		case <-ctx.Done():
			r.stop()
			return nil, fmt.Errorf("redis on %s not ready: %w", r.addr, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// flushAll wipes the private Redis (and only it).
func (r *privateRedis) flushAll(ctx context.Context) error {
	c := redis.NewClient(&redis.Options{Addr: r.addr})
	defer c.Close()
	return c.FlushAll(ctx).Err()
}

func (r *privateRedis) stop() {
	_ = r.cmd.Process.Kill()
	_, _ = r.cmd.Process.Wait()
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
