package deploy

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

const composeFile = "../docker-compose.yml"

// appServices run the foiaflow image; healthAddr names the variable holding
// the address of each one's /healthz and /readyz listener.
var appServices = map[string]struct{ healthAddr, defaultAddr string }{
	"api":       {"API_ADDR", ":8080"},
	"worker":    {"WORKER_METRICS_ADDR", "127.0.0.1:9091"},
	"scheduler": {"SCHEDULER_METRICS_ADDR", "127.0.0.1:9092"},
}

// loadCompose loads docker-compose.yml the way `docker compose config`
// does: compose-go parses it, validates it against the Compose
// specification's JSON schema, interpolates, normalizes and checks
// consistency (unknown services in depends_on, undefined volumes, ...).
// The process environment is ignored so the result is reproducible.
func loadCompose(t *testing.T) *types.Project {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts, err := cli.NewProjectOptions([]string{composeFile},
		cli.WithWorkingDirectory(".."),
		cli.WithEnv(nil),
		cli.WithInterpolation(true),
		cli.WithNormalization(true),
		cli.WithConsistency(true),
		cli.WithResolvedPaths(true),
	)
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(ctx)
	if err != nil {
		t.Fatalf("%s: %v", composeFile, err)
	}
	return p
}

func TestComposeServices(t *testing.T) {
	t.Parallel()
	p := loadCompose(t)
	want := []string{"api", "mailpit", "migrate", "postgres", "redis", "scheduler", "worker"}
	if got := p.ServiceNames(); !slices.Equal(got, want) {
		t.Errorf("services %v, want %v", got, want)
	}
	for name, s := range p.Services {
		hc := s.HealthCheck
		if name == "migrate" {
			if hc != nil && !hc.Disable {
				t.Errorf("migrate is a one-shot: no healthcheck")
			}
			continue
		}
		if hc == nil || hc.Disable || len(hc.Test) < 2 || (hc.Test[0] != "CMD" && hc.Test[0] != "CMD-SHELL") {
			t.Errorf("%s: needs a healthcheck (test %v)", name, hcTest(hc))
		}
		if s.Image == "" {
			t.Errorf("%s: no image", name)
		}
	}
}

func TestComposeBindMountsExist(t *testing.T) {
	t.Parallel()
	p := loadCompose(t)
	for name, s := range p.Services {
		for _, v := range s.Volumes {
			if v.Type != types.VolumeTypeBind {
				continue
			}
			if _, err := os.Stat(v.Source); err != nil {
				t.Errorf("%s: bind mount source: %v", name, err)
			}
		}
	}
}

func hcTest(hc *types.HealthCheckConfig) []string {
	if hc == nil {
		return nil
	}
	return hc.Test
}

func TestComposeRedisNoEviction(t *testing.T) {
	t.Parallel()
	p := loadCompose(t)
	r, err := p.GetService("redis")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(r.Command, "--maxmemory-policy")
	if i < 0 || i+1 >= len(r.Command) || r.Command[i+1] != "noeviction" {
		t.Errorf("redis command %v: asynq needs --maxmemory-policy noeviction", r.Command)
	}
}

func TestComposeAppServices(t *testing.T) {
	t.Parallel()
	p := loadCompose(t)
	vars := configVars(t)
	images := map[string]bool{}
	for _, name := range append([]string{"migrate"}, "api", "worker", "scheduler") {
		s, err := p.GetService(name)
		if err != nil {
			t.Fatal(err)
		}
		images[s.Image] = true
		if s.Build == nil || s.Build.Context == "" {
			t.Errorf("%s: builds the image from the repository (build: .)", name)
		}
		if !s.ReadOnly || !slices.ContainsFunc(s.Tmpfs, func(m string) bool { return strings.HasPrefix(m, "/tmp") }) {
			t.Errorf("%s: read_only with a /tmp tmpfs, as in Kubernetes", name)
		}
		for k := range s.Environment {
			if !vars[k] && !runtimeVars[k] {
				t.Errorf("%s: environment %s is not read by foiaflow (cmd/internal/app/config.go)", name, k)
			}
		}
		for k, want := range map[string]string{"SMTP_HOST": "mailpit", "SMTP_PORT": "1025", "SMTP_TLS": "none", "REDIS_ADDR": "redis:6379"} {
			if got := s.Environment[k]; got == nil || *got != want {
				t.Errorf("%s: %s=%v, want %s", name, k, deref(got), want)
			}
		}
		if db := s.Environment["DATABASE_URL"]; db == nil || !strings.Contains(*db, "@postgres:5432/") {
			t.Errorf("%s: DATABASE_URL must point at the postgres service", name)
		}
		wantDeps := map[string]string{"postgres": types.ServiceConditionHealthy}
		if name != "migrate" {
			wantDeps["redis"] = types.ServiceConditionHealthy
			wantDeps["migrate"] = types.ServiceConditionCompletedSuccessfully
		}
		for dep, cond := range wantDeps {
			if got := s.DependsOn[dep].Condition; got != cond {
				t.Errorf("%s: depends_on %s condition %q, want %q", name, dep, got, cond)
			}
		}
		if name == "migrate" {
			if !slices.Equal(s.Command, types.ShellCommand{"/usr/local/bin/worker", "migrate"}) {
				t.Errorf("migrate: command %v, want [/usr/local/bin/worker migrate]", s.Command)
			}
			if s.Restart != "" && s.Restart != types.RestartPolicyNo {
				t.Errorf("migrate: restart %q: a one-shot must not restart", s.Restart)
			}
			continue
		}
		checkAppHealthcheck(t, name, s)
	}
	if len(images) != 1 {
		t.Errorf("api, worker, scheduler and migrate must share one image, have %v", images)
	}
}

// checkAppHealthcheck: the image is distroless, so the test must be exec
// form (CMD) of the bundled healthcheck binary against the port the process
// really listens on.
func checkAppHealthcheck(t *testing.T, name string, s types.ServiceConfig) {
	t.Helper()
	hc := s.HealthCheck
	if hc == nil || len(hc.Test) != 3 || hc.Test[0] != "CMD" || hc.Test[1] != "/usr/local/bin/healthcheck" {
		t.Errorf("%s: healthcheck %v, want [CMD /usr/local/bin/healthcheck URL] (no shell in the image)", name, hcTest(hc))
		return
	}
	spec := appServices[name]
	addr := spec.defaultAddr
	if v := s.Environment[spec.healthAddr]; v != nil {
		addr = *v
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Errorf("%s: %s=%q: %v", name, spec.healthAddr, addr, err)
		return
	}
	// A published port reaches the container's interface, not its loopback
	// (the metrics listeners default to loopback, issue 10).
	if len(s.Ports) > 0 && host != "" && host != "0.0.0.0" {
		t.Errorf("%s: publishes %v but %s=%q listens on %s only", name, s.Ports, spec.healthAddr, addr, host)
	}
	if want := fmt.Sprintf("http://127.0.0.1:%s/readyz", port); hc.Test[2] != want {
		t.Errorf("%s: healthcheck URL %q, want %q", name, hc.Test[2], want)
	}
	if hc.Interval == nil || hc.Timeout == nil || hc.Retries == nil {
		t.Errorf("%s: set the healthcheck interval, timeout and retries", name)
	}
}

// TestComposeWorkerStopGrace: compose sends SIGKILL stop_grace_period after
// SIGTERM (10s by default), which would cut the worker's drain short.
func TestComposeWorkerStopGrace(t *testing.T) {
	t.Parallel()
	p := loadCompose(t)
	w, err := p.GetService("worker")
	if err != nil {
		t.Fatal(err)
	}
	v := w.Environment["WORKER_SHUTDOWN_TIMEOUT"]
	if v == nil {
		t.Fatal("worker: set WORKER_SHUTDOWN_TIMEOUT explicitly")
	}
	shutdown, err := time.ParseDuration(*v)
	if err != nil {
		t.Fatal(err)
	}
	if w.StopGracePeriod == nil || time.Duration(*w.StopGracePeriod) <= shutdown {
		t.Errorf("worker: stop_grace_period %v must exceed WORKER_SHUTDOWN_TIMEOUT %s", w.StopGracePeriod, shutdown)
	}
}

func TestComposeWorkerWaitsForMailpit(t *testing.T) {
	t.Parallel()
	p := loadCompose(t)
	w, err := p.GetService("worker")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.DependsOn["mailpit"].Condition; got != types.ServiceConditionHealthy {
		t.Errorf("worker: depends_on mailpit condition %q, want service_healthy", got)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return *s
}
