package fleet

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain doubles as a harness when FLEET_TEST_HARNESS is set: it starts
// two long-running children with StartChild, one of them from a goroutine
// whose OS thread then exits (the case Pdeathsig gets wrong when children
// are forked from arbitrary threads), prints their pids and waits forever.
func TestMain(m *testing.M) {
	if os.Getenv("FLEET_TEST_HARNESS") == "1" {
		harness()
		return
	}
	os.Exit(m.Run())
}

func harness() {
	var pids []int
	for i := 0; i < 2; i++ {
		done := make(chan int)
		go func() {
			runtime.LockOSThread() // never unlocked: this thread exits with the goroutine
			cmd := exec.Command("sleep", "300")
			if err := StartChild(cmd); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			done <- cmd.Process.Pid
		}()
		pids = append(pids, <-done)
	}
	runtime.GC()
	fmt.Println("pids", pids[0], pids[1])
	select {}
}

// alive reports whether pid runs (not a zombie).
func alive(pid int) bool {
	_, err := procStart(pid)
	return err == nil
}

// waitGone polls until pid no longer runs or the deadline passes.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still running 10s after its harness died", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestChildrenDieWithKilledHarness(t *testing.T) {
	t.Parallel()
	h := exec.Command(os.Args[0], "-test.run=^$")
	h.Env = append(os.Environ(), "FLEET_TEST_HARNESS=1")
	out, err := h.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = h.Process.Kill(); _ = h.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("harness output: %v", err)
	}
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "pids" {
		t.Fatalf("harness said %q", line)
	}
	var pids []int
	for _, s := range f[1:] {
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("child %d died while its harness runs (its forking thread exited?)", pid)
		}
	}
	if err := h.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.Wait()
	for _, pid := range pids {
		waitGone(t, pid)
	}
}

func TestClaimRemovesWhatAKilledRunLeft(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state", "leftovers.json")
	scratch := filepath.Join(dir, "scratch")
	if err := os.MkdirAll(filepath.Join(scratch, "pg"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A process that does not die with us (no Pdeathsig), as a killed run
	// whose child escaped would leave it.
	stray := exec.Command("sleep", "300")
	stray.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := stray.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stray.Process.Kill(); _ = stray.Wait() }()

	var logged []string
	logf := func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	first, err := Claim(state, logf)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.AddProcess("stray", stray.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if err := first.AddDir(scratch); err != nil {
		t.Fatal(err)
	}
	// A recorded pid whose start time does not match (a recycled pid) must
	// be left alone: record this test process with a wrong start time.
	first.rec.Procs = append(first.rec.Procs, leftoverPID{PID: os.Getpid(), Start: 1, Name: "recycled"})
	if err := first.write(); err != nil {
		t.Fatal(err)
	}

	// The run "dies" without Done; the next run claims the state.
	second, err := Claim(state, logf)
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, stray.Process.Pid)
	if _, err := os.Stat(scratch); !os.IsNotExist(err) {
		t.Fatalf("stale scratch dir still there: %v", err)
	}
	if len(logged) != 2 || !strings.Contains(logged[0], "stray") {
		t.Fatalf("cleanup log %q: want the stray kill and the dir removal", logged)
	}
	second.Done()
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Fatalf("Done left %s: %v", state, err)
	}
}
