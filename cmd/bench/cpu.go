package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cpuGroups are the columns of the CPU split, in print order: the fleet's
// processes by pid; postgres, the server's backends connected to the bench
// database; pg-server, its postmaster and background processes (WAL writer,
// checkpointer: shared with any other database of the server); Redis by
// process name; the bench itself; and what the machine spent besides
// (kernel, other tenants of the machine, their Postgres backends).
var cpuGroups = []string{"api", "worker", "scheduler", "postgres", "pg-server", "redis", "bench", "other"}

// cpuSample is the CPU time (s, user+system, all cores) of each group at
// one instant, and the machine's busy and total time (s summed over cores).
type cpuSample struct {
	group       map[string]float64
	busy, total float64
}

// sampleCPU reads /proc: pids names the fleet's processes (api, worker,
// scheduler); Postgres processes are told apart by their title ("postgres:
// 15/main: user db host(port) activity" for a backend).
func sampleCPU(pids map[string]int, db string) cpuSample {
	s := cpuSample{group: map[string]float64{}}
	byPID := map[int]string{os.Getpid(): "bench"}
	for name, pid := range pids {
		byPID[pid] = name
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		comm, f, ok := procStat(pid)
		if !ok {
			continue
		}
		name, own := byPID[pid]
		switch {
		case own:
		case comm == "postgres":
			name = postgresGroup(pid, db)
		case comm == "redis-server":
			name = "redis"
		}
		if name != "" {
			s.group[name] += f[0] + f[1]
		}
	}
	busy, total := machineBusy()
	s.busy, s.total = busy/100, total/100
	return s
}

// postgresGroup classifies a Postgres process by its title: a backend of
// database db is "postgres", a backend of another database "" (other), the
// postmaster and background processes "pg-server".
func postgresGroup(pid int, db string) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	title := strings.Fields(strings.ReplaceAll(string(b), "\x00", " "))
	// postgres: 15/main: user db host(port) activity
	if len(title) >= 5 && title[0] == "postgres:" && (strings.Contains(title[4], "(") || title[4] == "[local]") {
		if title[3] == db {
			return "postgres"
		}
		return ""
	}
	return "pg-server"
}

// procStat returns the command name and utime, stime, cutime, cstime (s)
// of pid from /proc/<pid>/stat.
func procStat(pid int) (string, [4]float64, bool) {
	var out [4]float64
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", out, false
	}
	s := string(b)
	open, i := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || i < open || i+2 > len(s) {
		return "", out, false
	}
	f := strings.Fields(s[i+2:]) // fields from 3 (state) on
	if len(f) < 15 {
		return "", out, false
	}
	for k := range out {
		v, _ := strconv.ParseFloat(f[11+k], 64)
		out[k] = v / 100 // USER_HZ is 100 on Linux
	}
	return s[open+1 : i], out, true
}

// cpuSplit is the CPU time each group spent between two samples (s).
type cpuSplit struct {
	group       map[string]float64
	busy, total float64
}

func (a cpuSample) to(b cpuSample) cpuSplit {
	d := cpuSplit{group: map[string]float64{}, busy: b.busy - a.busy, total: b.total - a.total}
	known := 0.0
	for _, g := range cpuGroups[:len(cpuGroups)-1] {
		d.group[g] = max(b.group[g]-a.group[g], 0)
		known += d.group[g]
	}
	d.group["other"] = max(d.busy-known, 0)
	return d
}

// note prints the split per unit of work (n of them, e.g. runs):
// "machine CPU per run during full load: 29.0 ms = api 4.1, worker 9.5, …
// ms (of busy: 14% 33% …); machine busy 97%".
func (d cpuSplit) note(what, unit string, n int) string {
	var ms, pc []string
	for _, g := range cpuGroups {
		ms = append(ms, fmt.Sprintf("%s %.2f", g, d.group[g]*1000/float64(max(n, 1))))
		pc = append(pc, fmt.Sprintf("%.0f%%", 100*d.group[g]/max(d.busy, 1e-9)))
	}
	return fmt.Sprintf("machine CPU per %s during %s: %.2f ms = %s ms (of busy: %s); machine busy %.0f%%",
		unit, what, d.busy*1000/float64(max(n, 1)), strings.Join(ms, ", "), strings.Join(pc, " "), 100*d.busy/max(d.total, 1e-9))
}
