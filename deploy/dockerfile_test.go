package deploy

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
	corev1 "k8s.io/api/core/v1"
)

const (
	repoRoot      = ".."
	dockerfile    = "../Dockerfile"
	dockerignore  = "../.dockerignore"
	binDir        = "/usr/local/bin/"
	healthcheckGo = "deploy/healthcheck"
)

// imageBinaries reads which commands the Dockerfile builds into binDir: the
// ./cmd/X packages of its `go build -o /out/` and `-o /out/NAME` outputs,
// which the final stage copies to /usr/local/bin.
func imageBinaries(t *testing.T) (map[string]bool, string) {
	t.Helper()
	b, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	if !strings.Contains(df, "COPY --from=build /out/ "+binDir) {
		t.Fatalf("Dockerfile must copy the build outputs (/out/) to %s", binDir)
	}
	bins := map[string]bool{}
	for _, m := range regexp.MustCompile(`\./cmd/([a-z0-9_-]+)`).FindAllStringSubmatch(df, -1) {
		bins[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`-o /out/([a-z0-9_-]+)`).FindAllStringSubmatch(df, -1) {
		bins[m[1]] = true
	}
	return bins, df
}

func TestDockerfile(t *testing.T) {
	t.Parallel()
	bins, df := imageBinaries(t)
	for _, want := range []string{"api", "worker", "scheduler", "healthcheck"} {
		if !bins[want] {
			t.Errorf("Dockerfile does not build %s", want)
		}
	}
	for b := range bins {
		if b == "healthcheck" {
			continue
		}
		if st, err := os.Stat(filepath.Join(repoRoot, "cmd", b)); err != nil || !st.IsDir() {
			t.Errorf("Dockerfile builds ./cmd/%s, which does not exist", b)
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "--mount=type=cache,target=/go/pkg/mod",
		"FROM gcr.io/distroless/static-debian12:nonroot", "cd " + healthcheckGo} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	// The final stage's user must be numeric (kubelet's runAsNonRoot check)
	// and the one the Kubernetes pods run as.
	users := regexp.MustCompile(`(?m)^USER\s+(\S+)`).FindAllStringSubmatch(df, -1)
	if len(users) == 0 {
		t.Fatal("Dockerfile sets no USER")
	}
	uid, _, _ := strings.Cut(users[len(users)-1][1], ":")
	n, err := strconv.ParseInt(uid, 10, 64)
	if err != nil || n == 0 {
		t.Fatalf("final USER %q must be a numeric non-root uid", users[len(users)-1][1])
	}
	m, _ := loadManifests(t)
	for _, d := range m.deployments {
		if sc := d.Spec.Template.Spec.SecurityContext; sc != nil && sc.RunAsUser != nil && *sc.RunAsUser != n {
			t.Errorf("%s runs as uid %d, the image as %d", d.Name, *sc.RunAsUser, n)
		}
	}
}

// TestCommandsExistInImage: every /usr/local/bin/X that compose or
// Kubernetes runs (commands and healthchecks) is built by the Dockerfile.
func TestCommandsExistInImage(t *testing.T) {
	t.Parallel()
	bins, _ := imageBinaries(t)
	check := func(where string, args []string) {
		for _, a := range args {
			if strings.HasPrefix(a, binDir) && !bins[path.Base(a)] {
				t.Errorf("%s runs %s, which the Dockerfile does not build", where, a)
			}
		}
	}
	p := loadCompose(t)
	for name, s := range p.Services {
		check("compose "+name, s.Command)
		check("compose "+name+" healthcheck", hcTest(s.HealthCheck))
	}
	m, _ := loadManifests(t)
	var pods []struct {
		name string
		spec corev1.PodSpec
	}
	for _, d := range m.deployments {
		pods = append(pods, struct {
			name string
			spec corev1.PodSpec
		}{d.Name, d.Spec.Template.Spec})
	}
	for _, j := range m.jobs {
		pods = append(pods, struct {
			name string
			spec corev1.PodSpec
		}{j.Name, j.Spec.Template.Spec})
	}
	for _, pd := range pods {
		for _, c := range pd.spec.Containers {
			check(pd.name, c.Command)
		}
	}
}

// TestDockerignoreKeepsBuildInputs walks the repository and matches every
// file against .dockerignore as BuildKit does: the sources of the root
// module (every file under a directory holding Go files, where go:embed
// finds its data), go.mod, go.sum and the healthcheck module must reach the
// build context; secrets-prone and unneeded paths must not.
func TestDockerignoreKeepsBuildInputs(t *testing.T) {
	t.Parallel()
	f, err := os.Open(dockerignore)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	excluded := func(p string) bool {
		ex, err := pm.MatchesOrParentMatches(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return ex
	}
	goDirs := map[string]bool{}
	var files []string
	err = filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			// Other modules (this one) and VCS data are not build inputs;
			// the healthcheck module is.
			if rel == ".git" || (rel != "." && rel != healthcheckGo && hasGoMod(p)) {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, rel)
		if strings.HasSuffix(rel, ".go") {
			goDirs[path.Dir(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	under := func(file string) bool {
		for dir := file; dir != "." && dir != "/"; {
			dir = path.Dir(dir)
			if goDirs[dir] && dir != "." {
				return true
			}
		}
		return false
	}
	for _, file := range files {
		needed := file == "go.mod" || file == "go.sum" || under(file)
		if needed && excluded(file) {
			t.Errorf(".dockerignore excludes %s, which the build needs", file)
		}
	}
	for _, want := range []string{"go.mod", "go.sum", healthcheckGo + "/go.mod", healthcheckGo + "/main.go"} {
		if excluded(want) {
			t.Errorf(".dockerignore excludes %s", want)
		}
	}
	for _, unwanted := range []string{".git/HEAD", "deploy/k8s/secret.yaml", "deploy/go.sum", "var/outbox/x.eml"} {
		if !excluded(unwanted) {
			t.Errorf(".dockerignore lets %s into the build context", unwanted)
		}
	}
	if slices.Contains(patterns, "*.go") || slices.Contains(patterns, "**/*.go") {
		t.Error(".dockerignore excludes Go sources")
	}
}

func hasGoMod(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}
