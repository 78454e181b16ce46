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

	"github.com/redis/go-redis/v9"
)

// pgBinDir finds initdb/pg_ctl: the machine's Postgres 15 first, then PATH.
func pgBinDir() (string, error) {
	for _, d := range []string{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"} {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	p, err := exec.LookPath("pg_ctl")
	if err != nil {
		return "", fmt.Errorf("no pg_ctl found (install postgresql): %w", err)
	}
	return filepath.Dir(p), nil
}

// privatePG is a throwaway Postgres cluster in a temp dir on its own port,
// so restarting it never touches the shared instance on 5432.
type privatePG struct {
	bin, dir, data string
	port           int
	asUser         string // "" when not root
}

// pgCmd runs a Postgres binary, as the postgres user when we are root
// (initdb and postgres refuse to run as root).
func (p *privatePG) pgCmd(ctx context.Context, name string, args ...string) *exec.Cmd {
	path := filepath.Join(p.bin, name)
	if p.asUser != "" {
		return exec.CommandContext(ctx, "runuser", append([]string{"-u", p.asUser, "--", path}, args...)...)
	}
	return exec.CommandContext(ctx, path, args...)
}

func (p *privatePG) run(ctx context.Context, name string, args ...string) error {
	out, err := p.pgCmd(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %v: %w\n%s", name, args, err, out)
	}
	return nil
}

// startPG initdbs dir/pg and starts it on port with trust auth and settings
// for a disposable test cluster (fsync off; synchronous_commit stays on so
// an acknowledged commit survives a restart).
func startPG(ctx context.Context, dir string, port int) (*privatePG, error) {
	bin, err := pgBinDir()
	if err != nil {
		return nil, err
	}
	p := &privatePG{bin: bin, dir: dir, data: filepath.Join(dir, "pg"), port: port}
	if os.Geteuid() == 0 {
		p.asUser = "postgres"
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs a postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.MkdirAll(p.data, 0o700); err != nil {
			return nil, err
		}
		for _, d := range []string{dir, p.data} {
			if err := os.Chown(d, uid, gid); err != nil {
				return nil, err
			}
		}
	}
	if err := p.run(ctx, "initdb", "-D", p.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"); err != nil {
		return nil, err
	}
	return p, p.ctl(ctx, "start")
}

// ctl runs pg_ctl start|restart|stop; mode is used for restart and stop.
func (p *privatePG) ctl(ctx context.Context, action string, mode ...string) error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off "+
		"-c max_connections=300 -c shared_buffers=64MB", p.port, p.dir)
	args := []string{action, "-D", p.data, "-w", "-t", "60", "-o", opts, "-l", filepath.Join(p.dir, "postgres.log")}
	if len(mode) > 0 {
		args = append(args, "-m", mode[0])
	}
	return p.run(ctx, "pg_ctl", args...)
}

// url is the connection URL of database db with an application_name.
func (p *privatePG) url(db, app string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&application_name=%s", p.port, db, app)
}

// stop shuts the cluster down immediately (teardown).
func (p *privatePG) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.run(ctx, "pg_ctl", "stop", "-D", p.data, "-m", "immediate", "-w"); err != nil {
		fmt.Fprintln(os.Stderr, "chaos: stopping private postgres:", err)
	}
}

// privateRedis is a redis-server child on its own port with no persistence.
type privateRedis struct {
	cmd  *exec.Cmd
	addr string
}

func startRedis(ctx context.Context, dir string, port int) (*privateRedis, error) {
	logf, err := os.Create(filepath.Join(dir, "redis.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--daemonize", "no", "--dir", dir)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	r := &privateRedis{cmd: cmd, addr: fmt.Sprintf("127.0.0.1:%d", port)}
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
