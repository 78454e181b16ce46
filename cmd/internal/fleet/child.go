package fleet

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// spawnReq asks the spawner thread to start cmd.
type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	spawnOnce sync.Once
	spawnCh   chan spawnReq
)

// StartChild starts cmd so that it dies with this process: the kernel sends
// it SIGKILL (Linux PR_SET_PDEATHSIG) when the harness dies, SIGKILL
// included. The parent-death signal fires when the OS thread that forked the
// child exits, not the process, so every child is forked from one goroutine
// locked to its thread for the life of the process. cmd also gets its own
// process group (a ^C at the terminal reaches the harness only, which then
// stops its children in order). Credential, if set, is kept.
func StartChild(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnCh = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for r := range spawnCh {
				r.done <- r.cmd.Start()
			}
		}()
	})
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	done := make(chan error, 1)
	spawnCh <- spawnReq{cmd: cmd, done: done}
	return <-done
}

// DieWithParent makes this process receive SIGKILL when its parent dies, so
// that a harness started by make dies when make is killed (and takes its
// children with it through StartChild). It is a no-op error when the parent
// is already gone. The Makefile execs the harness binary (no `go run` in
// between) so that the parent is make itself.
func DieWithParent() error {
	ppid := os.Getppid()
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_PDEATHSIG: %w", err)
	}
	if os.Getppid() != ppid { // the parent died before the prctl took effect
		return fmt.Errorf("parent %d already exited", ppid)
	}
	return nil
}
