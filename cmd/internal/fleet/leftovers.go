package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Leftovers is the record a harness run keeps of what it started (child
// processes and scratch directories) in one JSON file, so that the next run
// of the same harness can remove what a killed run left behind. A pid is
// recorded with its start time (/proc/<pid>/stat field 22) so that a
// recycled pid is never killed.
type Leftovers struct {
	path string
	mu   sync.Mutex
	rec  leftoverRecord
}

type leftoverRecord struct {
	Owner int           `json:"owner"` // pid of the harness that wrote the record
	Procs []leftoverPID `json:"procs"`
	Dirs  []string      `json:"dirs"`
}

type leftoverPID struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"` // clock ticks after boot
	Name  string `json:"name"`
}

// Claim cleans up after a previous run recorded at path: every process it
// recorded that still runs (same pid, same start time) gets SIGKILL, with
// its process group, and every directory it recorded is removed. It then
// starts an empty record owned by this process. The cleanup steps taken are
// reported through logf.
func Claim(path string, logf func(format string, args ...any)) (*Leftovers, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	var old leftoverRecord
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(b, &old); err != nil {
			logf("ignoring unreadable %s: %v", path, err)
		}
	}
	var killed []leftoverPID
	for _, p := range old.Procs {
		if st, err := procStart(p.PID); err == nil && st == p.Start {
			logf("killing %s (pid %d) left running by a previous run (pid %d)", p.Name, p.PID, old.Owner)
			_ = syscall.Kill(-p.PID, syscall.SIGKILL)
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
			killed = append(killed, p)
		}
	}
	for _, p := range killed { // wait so that ports and data dirs are free
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if st, err := procStart(p.PID); err != nil || st != p.Start {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, d := range old.Dirs {
		if _, err := os.Stat(d); err == nil {
			logf("removing %s left by a previous run", d)
			if err := os.RemoveAll(d); err != nil {
				return nil, fmt.Errorf("remove stale %s: %w", d, err)
			}
		}
	}
	l := &Leftovers{path: path, rec: leftoverRecord{Owner: os.Getpid()}}
	return l, l.write()
}

// AddProcess records a started child process under name.
func (l *Leftovers) AddProcess(name string, pid int) error {
	st, err := procStart(pid)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rec.Procs = append(l.rec.Procs, leftoverPID{PID: pid, Start: st, Name: name})
	return l.writeLocked()
}

// AddDir records a scratch directory to remove if this run dies.
func (l *Leftovers) AddDir(dir string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rec.Dirs = append(l.rec.Dirs, dir)
	return l.writeLocked()
}

// Done removes the record once the run has cleaned up after itself.
func (l *Leftovers) Done() {
	_ = os.Remove(l.path)
}

func (l *Leftovers) write() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writeLocked()
}

func (l *Leftovers) writeLocked() error {
	b, err := json.Marshal(l.rec)
	if err != nil {
		return err
	}
	tmp := l.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, l.path)
}

// procStart reads the start time of pid (clock ticks since boot) from
// /proc/<pid>/stat; an error means the process does not exist.
func procStart(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may contain spaces
	if i < 0 {
		return 0, fmt.Errorf("pid %d: malformed stat", pid)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); the start time is field 22.
	if len(f) < 20 {
		return 0, fmt.Errorf("pid %d: short stat", pid)
	}
	if f[0] == "Z" {
		return 0, fmt.Errorf("pid %d: zombie", pid)
	}
	var st uint64
	if _, err := fmt.Sscan(f[19], &st); err != nil {
		return 0, fmt.Errorf("pid %d: start time: %w", pid, err)
	}
	return st, nil
}
