package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cpuGroups are the columns of the CPU split, in print order: the fleet's
// processes by pid, Postgres and Redis by process name (every backend of
// the server, including those that exited: the postmaster's reaped
// children count), the bench itself, and what the machine spent besides
// (kernel, other tenants of the machine).
var cpuGroups = []string{"api", "worker", "scheduler", "postgres", "redis", "bench", "other"}

// cpuSample is the CPU time (s, user+system, all cores) of each group at
// one instant, and the machine's busy and total time (s summed over cores).
type cpuSample struct {
	group       map[string]float64
	busy, total float64
}

// sampleCPU reads /proc: pids names the fleet's processes (api, worker,
// scheduler); processes named postgres or redis-server are summed into
// their groups, with their reaped children (cutime+cstime).
func sampleCPU(pids map[string]int) cpuSample {
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
			s.group[name] += f[0] + f[1]
		case comm == "postgres":
			s.group["postgres"] += f[0] + f[1] + f[2] + f[3]
		case comm == "redis-server":
			s.group["redis"] += f[0] + f[1] + f[2] + f[3]
		}
	}
	busy, total := machineBusy()
	s.busy, s.total = busy/100, total/100
	return s
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
