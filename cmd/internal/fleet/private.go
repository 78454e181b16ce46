package fleet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
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

// PrivatePG is a throwaway Postgres cluster in a temp dir on its own port,
// so stopping or restarting it never touches the shared instance on 5432
// (make chaos, make attack). The postmaster runs in the foreground as a
// direct child of the harness (not
// daemonized by pg_ctl), so that it dies with chaos (fleet.StartChild) and
// its backends follow it.
type PrivatePG struct {
	bin, dir, data string
	Port           int
	cred           *syscall.Credential // the postgres user when we are root
	left           *Leftovers
	cmd            *exec.Cmd
	done           chan struct{}
}

// StartPG initdbs dir/pg and starts it on port with trust auth and settings
// for a disposable test cluster (fsync off; synchronous_commit stays on so
// an acknowledged commit survives a restart).
func StartPG(ctx context.Context, dir string, port int, left *Leftovers) (*PrivatePG, error) {
	bin, err := pgBinDir()
	if err != nil {
		return nil, err
	}
	p := &PrivatePG{bin: bin, dir: dir, data: filepath.Join(dir, "pg"), Port: port, left: left}
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
	return p, p.Start(ctx)
}

// Start runs the postmaster in the foreground and waits until it accepts
// connections.
func (p *PrivatePG) Start(ctx context.Context) error {
	logf, err := os.OpenFile(filepath.Join(p.dir, "postgres.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child holds its own descriptor
	cmd := exec.Command(filepath.Join(p.bin, "postgres"), "-D", p.data, "-p", strconv.Itoa(p.Port), "-k", p.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300", "-c", "shared_buffers=64MB")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	if err := StartChild(cmd); err != nil {
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
		c, err := pgx.Connect(ctx, p.URL("postgres", "harness-ready"))
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

// Shutdown stops the postmaster with mode (smart, fast or immediate: SIGTERM,
// SIGINT or SIGQUIT, as pg_ctl -m sends them) and waits for it to exit,
// SIGKILLing it after 60 s.
func (p *PrivatePG) Shutdown(mode string) error {
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

// Restart stops the cluster with mode and starts it again.
func (p *PrivatePG) Restart(ctx context.Context, mode string) error {
	if err := p.Shutdown(mode); err != nil {
		return err
	}
	return p.Start(ctx)
}

// URL is the connection URL of database db with an application_name.
func (p *PrivatePG) URL(db, app string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&application_name=%s", p.Port, db, app)
}

// Stop shuts the cluster down immediately (teardown).
func (p *PrivatePG) Stop() {
	if p.cmd == nil {
		return
	}
	if err := p.Shutdown("immediate"); err != nil {
		fmt.Fprintln(os.Stderr, "fleet: stopping private postgres:", err)
	}
}

// PrivateRedis is a redis-server child on its own port with no persistence.
type PrivateRedis struct {
	cmd  *exec.Cmd
	Addr string // host:port
}

// StartRedis starts redis-server on 127.0.0.1:port (log in dir/redis.log)
// and waits until it answers PING.
func StartRedis(ctx context.Context, dir string, port int, left *Leftovers) (*PrivateRedis, error) {
	logf, err := os.Create(filepath.Join(dir, "redis.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--daemonize", "no", "--dir", dir)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := StartChild(cmd); err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	r := &PrivateRedis{cmd: cmd, Addr: fmt.Sprintf("127.0.0.1:%d", port)}
	if err := left.AddProcess("redis-server", cmd.Process.Pid); err != nil {
		r.Stop()
		return nil, err
	}
	c := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer c.Close()
	for {
		if err := c.Ping(ctx).Err(); err == nil {
			return r, nil
		}
		select {
		case <-ctx.Done():
			r.Stop()
			return nil, fmt.Errorf("redis on %s not ready: %w", r.Addr, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// FlushAll wipes the private Redis (and only it).
func (r *PrivateRedis) FlushAll(ctx context.Context) error {
	c := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer c.Close()
	return c.FlushAll(ctx).Err()
}

// Stop kills the redis-server.
func (r *PrivateRedis) Stop() {
	_ = r.cmd.Process.Kill()
	_, _ = r.cmd.Process.Wait()
}

// CreateDB creates database name through adminURL (on a fresh private
// cluster; RecreateDB drops it first).
func CreateDB(ctx context.Context, adminURL, name string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("connect %s: %w", adminURL, err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	return err
}

// Private is a harness's own Postgres and Redis, started in a temp dir on
// free ports, with a free port reserved for the api (make chaos, make
// attack): killing, restarting or wiping them never touches the shared
// instances on 5432 and 6379.
type Private struct {
	PG      *PrivatePG
	Redis   *PrivateRedis
	APIPort int
	Dir     string // temp dir holding both data dirs; removed by Stop
}

// StartPrivate starts a private Postgres (database db created) and Redis
// for harness name ("chaos", "attack": the temp dir's prefix and the setup
// connection's application_name). The temp dir is registered in left, so a
// later run removes it if this one is killed. On error nothing it started
// is left running.
func StartPrivate(ctx context.Context, name, db string, left *Leftovers) (_ *Private, err error) {
	tmp, err := os.MkdirTemp("", "foiaflow-"+name+"-")
	if err != nil {
		return nil, err
	}
	p := &Private{Dir: tmp}
	defer func() {
		if err != nil {
			p.Stop()
		}
	}()
	if err := left.AddDir(tmp); err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // the postgres user must reach its data dir
		return nil, err
	}
	var ports [3]int
	for i := range ports {
		if ports[i], err = FreePort(); err != nil {
			return nil, err
		}
	}
	p.APIPort = ports[2]
	Step("starting a private postgres on :%d and redis on :%d (data in %s)", ports[0], ports[1], tmp)
	if p.PG, err = StartPG(ctx, filepath.Join(tmp, "pgroot"), ports[0], left); err != nil {
		return nil, err
	}
	if err := CreateDB(ctx, p.PG.URL("postgres", name+"-setup"), db); err != nil {
		return nil, err
	}
	if p.Redis, err = StartRedis(ctx, tmp, ports[1], left); err != nil {
		return nil, err
	}
	return p, nil
}

// Stop kills Redis, shuts Postgres down immediately and removes the temp
// dir (teardown; also after a partial start).
func (p *Private) Stop() {
	if p.Redis != nil {
		p.Redis.Stop()
	}
	if p.PG != nil {
		p.PG.Stop()
	}
	_ = os.RemoveAll(p.Dir)
}
