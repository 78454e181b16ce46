package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	sharedfleet "github.com/foiaflow/foiaflow/cmd/internal/fleet"
)

// proc is one foiaflow process slot (api, w1, w2, s1, s2); a killed worker
// is restarted in the same slot with a new incarnation number.
type proc struct {
	slot, bin   string
	env         []string
	cmd         *exec.Cmd
	incarnation int
	done        chan struct{}
}

// fleet runs the foiaflow binaries with their logs under dir/logs.
type fleet struct {
	dir   string
	env   []string
	left  *sharedfleet.Leftovers
	mu    sync.Mutex
	procs map[string]*proc
}

// build compiles api, worker and scheduler into dir/bin (cmd/internal/fleet).
func (f *fleet) build(ctx context.Context) error {
	return (&sharedfleet.Fleet{Dir: f.dir, Env: f.env}).Build(ctx)
}

// runOnce executes a binary to completion (migrations).
func (f *fleet) runOnce(ctx context.Context, name string, args ...string) error {
	return (&sharedfleet.Fleet{Dir: f.dir, Env: f.env}).Run(ctx, name, args...)
}

// start launches slot running bin with extra env; its log is appended to
// dir/logs/<slot>.log.
func (f *fleet) start(slot, bin string, env ...string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.procs == nil {
		f.procs = map[string]*proc{}
	}
	p := f.procs[slot]
	if p == nil {
		p = &proc{slot: slot, bin: bin, env: env}
		f.procs[slot] = p
	}
	return f.launch(p)
}

func (f *fleet) launch(p *proc) error {
	p.incarnation++
	logf, err := os.OpenFile(filepath.Join(f.dir, "logs", p.slot+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "\n===== chaos: %s incarnation %d at %s =====\n", p.slot, p.incarnation, time.Now().UTC().Format(time.RFC3339Nano))
	cmd := exec.Command(filepath.Join(f.dir, "bin", p.bin))
	cmd.Env = append(append(append([]string(nil), f.env...), p.env...), fmt.Sprintf("WORKER_ID=%s-%d", p.slot, p.incarnation))
	cmd.Stdout, cmd.Stderr = logf, logf
	// Own process group, and killed with us if chaos itself dies.
	if err := sharedfleet.StartChild(cmd); err != nil {
		logf.Close()
		return fmt.Errorf("start %s: %w", p.slot, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(done) }()
	p.cmd, p.done = cmd, done
	return f.left.AddProcess(p.slot, cmd.Process.Pid)
}

// kill SIGKILLs the slot's process, waits for it to die and restarts it.
// It returns the kill time and the pid killed.
func (f *fleet) killRestart(slot string) (time.Time, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.procs[slot]
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

// alive reports whether slot's current process is running.
func (f *fleet) alive(slot string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.procs[slot]
	if p == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM to every process, then SIGKILL to any still running
// after grace. Safe to call more than once.
func (f *fleet) stop(grace time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.procs {
		if p.cmd != nil {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	deadline := time.After(grace)
	for _, p := range f.procs {
		if p.cmd == nil {
			continue
		}
		select {
		case <-p.done:
		case <-deadline:
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
}

// waitReady polls url until it answers 200.
func waitReady(ctx context.Context, url string) error { return sharedfleet.WaitReady(ctx, url) }
