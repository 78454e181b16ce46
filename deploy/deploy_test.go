package deploy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

const (
	k8sDir     = "k8s"
	namespace  = "foiaflow"
	configPath = "../cmd/internal/app/config.go"
	imageName  = "foiaflow" // the kustomization's images: entry rewrites it
)

// minReplicas is what each Deployment must run: two api replicas behind the
// Service, two or more workers, and a scheduler standby for leader failover.
var minReplicas = map[string]int32{"foiaflow-api": 2, "foiaflow-worker": 2, "foiaflow-scheduler": 2}

// manifests is every object of k8s/, strictly decoded.
type manifests struct {
	namespaces  []*corev1.Namespace
	configMaps  []*corev1.ConfigMap
	secrets     []*corev1.Secret
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	pdbs        []*policyv1.PodDisruptionBudget
	jobs        []*batchv1.Job
	files       map[string]bool // file names holding objects
}

// kustomization is the subset of kustomize's file this directory uses;
// strict decoding makes any other (or misspelt) field an error.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace"`
	Resources  []string `json:"resources"`
	Images     []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
		Digest  string `json:"digest"`
	} `json:"images"`
}

// splitDocs splits a multi-document YAML stream on its "---" lines, keeping
// each document's bytes as written (so strict decoding still sees duplicate
// keys) and dropping documents that hold only comments.
func splitDocs(b []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		var v any
		if err := yaml.Unmarshal(doc, &v); err != nil {
			return nil, err
		}
		if v != nil {
			docs = append(docs, doc)
		}
	}
}

// decodeStrict decodes one document into the typed object of its
// apiVersion/kind, rejecting unknown and duplicate fields.
func (m *manifests) decodeStrict(file string, doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	strict := func(obj any) error { return yaml.UnmarshalStrict(doc, obj) }
	switch tm.APIVersion + "/" + tm.Kind {
	case "v1/Namespace":
		o := &corev1.Namespace{}
		m.namespaces = append(m.namespaces, o)
		return strict(o)
	case "v1/ConfigMap":
		o := &corev1.ConfigMap{}
		m.configMaps = append(m.configMaps, o)
		return strict(o)
	case "v1/Secret":
		o := &corev1.Secret{}
		m.secrets = append(m.secrets, o)
		return strict(o)
	case "v1/Service":
		o := &corev1.Service{}
		m.services = append(m.services, o)
		return strict(o)
	case "apps/v1/Deployment":
		o := &appsv1.Deployment{}
		m.deployments = append(m.deployments, o)
		return strict(o)
	case "batch/v1/Job":
		o := &batchv1.Job{}
		m.jobs = append(m.jobs, o)
		return strict(o)
	case "policy/v1/PodDisruptionBudget":
		o := &policyv1.PodDisruptionBudget{}
		m.pdbs = append(m.pdbs, o)
		return strict(o)
	}
	return fmt.Errorf("unexpected apiVersion/kind %q/%q (add it to decodeStrict)", tm.APIVersion, tm.Kind)
}

func loadManifests(t *testing.T) (*manifests, kustomization) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(k8sDir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests in %s: %v", k8sDir, err)
	}
	m := &manifests{files: map[string]bool{}}
	var k kustomization
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(p) == "kustomization.yaml" {
			if err := yaml.UnmarshalStrict(b, &k); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			continue
		}
		docs, err := splitDocs(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for i, d := range docs {
			if err := m.decodeStrict(p, d); err != nil {
				t.Errorf("%s document %d: %v", p, i+1, err)
			}
		}
		m.files[filepath.Base(p)] = true
	}
	if t.Failed() {
		t.FailNow()
	}
	return m, k
}

// configVars is every environment variable cmd/internal/app.Config reads.
func configVars(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(configPath)
	if err != nil {
		t.Fatalf("read the config struct: %v", err)
	}
	vars := map[string]bool{}
	for _, m := range regexp.MustCompile(`env:"([A-Z0-9_]+)"`).FindAllSubmatch(b, -1) {
		vars[string(m[1])] = true
	}
	if len(vars) < 10 {
		t.Fatalf("%s: found only %d env tags; has Config moved?", configPath, len(vars))
	}
	return vars
}

// runtimeVars are read by the Go runtime, not by Config.
var runtimeVars = map[string]bool{"GOMEMLIMIT": true, "GOMAXPROCS": true, "GOGC": true, "GODEBUG": true}

func TestKustomizationListsEveryManifest(t *testing.T) {
	t.Parallel()
	m, k := loadManifests(t)
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		t.Errorf("kustomization.yaml: apiVersion/kind %q/%q", k.APIVersion, k.Kind)
	}
	if k.Namespace != namespace {
		t.Errorf("kustomization namespace %q, want %q", k.Namespace, namespace)
	}
	listed := map[string]bool{}
	for _, r := range k.Resources {
		listed[r] = true
		if !m.files[r] {
			t.Errorf("kustomization lists %s, which is not a manifest in %s", r, k8sDir)
		}
	}
	for f := range m.files {
		if !listed[f] {
			t.Errorf("%s is not listed in kustomization.yaml resources", f)
		}
	}
	if !slices.ContainsFunc(k.Images, func(i struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
		Digest  string `json:"digest"`
	}) bool {
		return i.Name == imageName && i.NewName != ""
	}) {
		t.Errorf("kustomization has no images entry rewriting %q", imageName)
	}
}

func TestObjectsNamespacedAndLabelled(t *testing.T) {
	t.Parallel()
	m, _ := loadManifests(t)
	if len(m.namespaces) != 1 || m.namespaces[0].Name != namespace {
		t.Fatalf("want exactly one Namespace %q", namespace)
	}
	var metas []metav1.ObjectMeta
	for _, o := range m.configMaps {
		metas = append(metas, o.ObjectMeta)
	}
	for _, o := range m.secrets {
		metas = append(metas, o.ObjectMeta)
	}
	for _, o := range m.deployments {
		metas = append(metas, o.ObjectMeta)
	}
	for _, o := range m.services {
		metas = append(metas, o.ObjectMeta)
	}
	for _, o := range m.pdbs {
		metas = append(metas, o.ObjectMeta)
	}
	for _, o := range m.jobs {
		metas = append(metas, o.ObjectMeta)
	}
	for _, md := range metas {
		if md.Name == "" || md.Namespace != namespace {
			t.Errorf("object %q: namespace %q, want %q", md.Name, md.Namespace, namespace)
		}
		if md.Labels["app.kubernetes.io/part-of"] != "foiaflow" {
			t.Errorf("object %q lacks label app.kubernetes.io/part-of=foiaflow", md.Name)
		}
	}
}

func TestDeployments(t *testing.T) {
	t.Parallel()
	m, _ := loadManifests(t)
	seen := map[string]bool{}
	for _, d := range m.deployments {
		seen[d.Name] = true
		t.Run(d.Name, func(t *testing.T) {
			want, ok := minReplicas[d.Name]
			if !ok {
				t.Fatalf("unexpected Deployment (add it to minReplicas)")
			}
			if d.Spec.Replicas == nil || *d.Spec.Replicas < want {
				t.Errorf("replicas %v, want >= %d", d.Spec.Replicas, want)
			}
			sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
			if err != nil || sel.Empty() {
				t.Fatalf("selector %v: %v", d.Spec.Selector, err)
			}
			if !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
				t.Errorf("selector %s does not match the pod template labels %v", sel, d.Spec.Template.Labels)
			}
			checkPodSpec(t, &d.Spec.Template.Spec, true)
			if !slices.ContainsFunc(m.pdbs, func(p *policyv1.PodDisruptionBudget) bool {
				ps, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
				return err == nil && !ps.Empty() && ps.Matches(labels.Set(d.Spec.Template.Labels))
			}) {
				t.Errorf("no PodDisruptionBudget selects its pods")
			}
			for _, c := range d.Spec.Template.Spec.Containers {
				checkEnvRefs(t, m, c)
			}
		})
	}
	for name := range minReplicas {
		if !seen[name] {
			t.Errorf("Deployment %s is missing", name)
		}
	}
}

// checkPodSpec checks what every foiaflow pod needs: non-root, read-only
// root filesystem with a writable /tmp, no service account token, resource
// requests and limits and, for long-running pods, health probes on named
// ports of the container.
func checkPodSpec(t *testing.T, ps *corev1.PodSpec, longRunning bool) {
	t.Helper()
	sc := ps.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		t.Errorf("pod securityContext must set runAsNonRoot and a non-zero numeric runAsUser")
	}
	if sc == nil || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext must use the RuntimeDefault seccomp profile")
	}
	if ps.AutomountServiceAccountToken == nil || *ps.AutomountServiceAccountToken {
		t.Errorf("automountServiceAccountToken must be false (nothing here talks to the Kubernetes API)")
	}
	vols := map[string]bool{}
	for _, v := range ps.Volumes {
		vols[v.Name] = true
	}
	if len(ps.Containers) == 0 {
		t.Fatal("no containers")
	}
	for _, c := range ps.Containers {
		if c.Image != imageName {
			t.Errorf("container %s: image %q, want %q (rewritten by kustomization images)", c.Name, c.Image, imageName)
		}
		if len(c.Command) == 0 || !strings.HasPrefix(c.Command[0], "/usr/local/bin/") {
			t.Errorf("container %s: command %v must name a binary of the image", c.Name, c.Command)
		}
		csc := c.SecurityContext
		if csc == nil || csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem ||
			csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation ||
			csc.Capabilities == nil || !slices.Contains(csc.Capabilities.Drop, "ALL") {
			t.Errorf("container %s: securityContext must set readOnlyRootFilesystem, allowPrivilegeEscalation=false, drop ALL", c.Name)
		}
		if !slices.ContainsFunc(c.VolumeMounts, func(vm corev1.VolumeMount) bool { return vm.MountPath == "/tmp" && vols[vm.Name] }) {
			t.Errorf("container %s: needs a writable /tmp volume (read-only root)", c.Name)
		}
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, lim := c.Resources.Requests[r], c.Resources.Limits[r]
			if req.IsZero() || lim.IsZero() {
				t.Errorf("container %s: needs %s request and limit", c.Name, r)
			} else if req.Cmp(lim) > 0 {
				t.Errorf("container %s: %s request %s above limit %s", c.Name, r, req.String(), lim.String())
			}
		}
		if v, ok := envValue(c, "GOMEMLIMIT"); ok {
			checkMemLimit(t, c, v)
		}
		if !longRunning {
			continue
		}
		ports := map[string]int32{}
		for _, p := range c.Ports {
			ports[p.Name] = p.ContainerPort
		}
		for kind, pr := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
			path := map[string]string{"liveness": "/healthz", "readiness": "/readyz"}[kind]
			if pr == nil || pr.HTTPGet == nil {
				t.Errorf("container %s: needs an httpGet %s probe", c.Name, kind)
				continue
			}
			if pr.HTTPGet.Path != path {
				t.Errorf("container %s: %s probe path %q, want %q", c.Name, kind, pr.HTTPGet.Path, path)
			}
			if _, ok := ports[pr.HTTPGet.Port.StrVal]; pr.HTTPGet.Port.Type != intstr.String || !ok {
				t.Errorf("container %s: %s probe port %q must name a container port", c.Name, kind, pr.HTTPGet.Port.String())
			}
		}
	}
}

// checkMemLimit wants GOMEMLIMIT below the container's memory limit, so the
// GC works harder before the kernel kills the container.
func checkMemLimit(t *testing.T, c corev1.Container, v string) {
	t.Helper()
	q, err := resource.ParseQuantity(strings.TrimSuffix(v, "B"))
	if err != nil {
		t.Errorf("container %s: GOMEMLIMIT %q: %v", c.Name, v, err)
		return
	}
	if lim := c.Resources.Limits[corev1.ResourceMemory]; q.Cmp(lim) >= 0 {
		t.Errorf("container %s: GOMEMLIMIT %s must be below the memory limit %s", c.Name, v, lim.String())
	}
}

func envValue(c corev1.Container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

// checkEnvRefs wants every envFrom source to exist in the manifests and
// every explicit variable to be one Config (or the Go runtime) reads.
func checkEnvRefs(t *testing.T, m *manifests, c corev1.Container) {
	t.Helper()
	vars := configVars(t)
	for _, e := range c.Env {
		if !vars[e.Name] && !runtimeVars[e.Name] {
			t.Errorf("container %s: env %s is not read by foiaflow (cmd/internal/app/config.go)", c.Name, e.Name)
		}
	}
	if len(c.EnvFrom) == 0 {
		t.Errorf("container %s: takes no settings (envFrom the ConfigMap and Secret)", c.Name)
	}
	for _, ef := range c.EnvFrom {
		switch {
		case ef.ConfigMapRef != nil:
			if !slices.ContainsFunc(m.configMaps, func(o *corev1.ConfigMap) bool { return o.Name == ef.ConfigMapRef.Name }) {
				t.Errorf("container %s: envFrom ConfigMap %s is not defined", c.Name, ef.ConfigMapRef.Name)
			}
		case ef.SecretRef != nil:
			if !slices.ContainsFunc(m.secrets, func(o *corev1.Secret) bool { return o.Name == ef.SecretRef.Name }) {
				t.Errorf("container %s: envFrom Secret %s is not defined", c.Name, ef.SecretRef.Name)
			}
		}
	}
}

// containerEnv resolves a variable as the container sees it: an explicit
// env entry wins over the envFrom ConfigMaps.
func containerEnv(m *manifests, c corev1.Container, name string) (string, bool) {
	if v, ok := envValue(c, name); ok {
		return v, true
	}
	var val string
	var found bool
	for _, ef := range c.EnvFrom {
		if ef.ConfigMapRef == nil {
			continue
		}
		for _, cm := range m.configMaps {
			if cm.Name == ef.ConfigMapRef.Name {
				if v, ok := cm.Data[name]; ok {
					val, found = v, true // later sources win
				}
			}
		}
	}
	return val, found
}

func TestConfigAndSecretKeysAreKnown(t *testing.T) {
	t.Parallel()
	m, _ := loadManifests(t)
	vars := configVars(t)
	for _, cm := range m.configMaps {
		for k := range cm.Data {
			if !vars[k] {
				t.Errorf("ConfigMap %s: %s is not read by foiaflow (cmd/internal/app/config.go)", cm.Name, k)
			}
		}
	}
	for _, s := range m.secrets {
		if len(s.Data) > 0 {
			t.Errorf("Secret %s: use stringData placeholders, not data", s.Name)
		}
		for k, v := range s.StringData {
			if !vars[k] {
				t.Errorf("Secret %s: %s is not read by foiaflow (cmd/internal/app/config.go)", s.Name, k)
			}
			// Only placeholders are committed: a value is empty or says CHANGE-ME.
			if v != "" && !strings.Contains(v, "CHANGE-ME") {
				t.Errorf("Secret %s: %s has a value that is not a CHANGE-ME placeholder", s.Name, k)
			}
		}
	}
}

// TestWorkerShutdownFitsGracePeriod: the kubelet sends SIGKILL
// terminationGracePeriodSeconds after it starts stopping the pod (preStop
// hook included), so the worker's WORKER_SHUTDOWN_TIMEOUT plus any preStop
// sleep must fit inside it with a margin for the last checkpoint commit.
func TestWorkerShutdownFitsGracePeriod(t *testing.T) {
	t.Parallel()
	m, _ := loadManifests(t)
	const margin = 5 * time.Second
	found := false
	for _, d := range m.deployments {
		ps := d.Spec.Template.Spec
		grace := 30 * time.Second // the API default
		if ps.TerminationGracePeriodSeconds != nil {
			grace = time.Duration(*ps.TerminationGracePeriodSeconds) * time.Second
		}
		for _, c := range ps.Containers {
			var preStop time.Duration
			if c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
				if c.Lifecycle.PreStop.Sleep == nil {
					t.Errorf("%s/%s: preStop must be a sleep action (no shell in the image)", d.Name, c.Name)
				} else {
					preStop = time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
				}
			}
			if preStop >= grace {
				t.Errorf("%s/%s: preStop sleep %s uses the whole grace period %s", d.Name, c.Name, preStop, grace)
			}
			if len(c.Command) == 0 || filepath.Base(c.Command[0]) != "worker" {
				continue
			}
			found = true
			v, ok := containerEnv(m, c, "WORKER_SHUTDOWN_TIMEOUT")
			if !ok {
				t.Errorf("%s/%s: set WORKER_SHUTDOWN_TIMEOUT explicitly so this check sees it", d.Name, c.Name)
				continue
			}
			shutdown, err := time.ParseDuration(v)
			if err != nil {
				t.Errorf("%s/%s: WORKER_SHUTDOWN_TIMEOUT %q: %v", d.Name, c.Name, v, err)
				continue
			}
			if preStop+shutdown+margin > grace {
				t.Errorf("%s/%s: terminationGracePeriodSeconds %s must exceed preStop %s + WORKER_SHUTDOWN_TIMEOUT %s + %s",
					d.Name, c.Name, grace, preStop, shutdown, margin)
			}
		}
	}
	if !found {
		t.Error("no Deployment runs /usr/local/bin/worker")
	}
}

func TestServicesReachNamedPorts(t *testing.T) {
	t.Parallel()
	m, _ := loadManifests(t)
	if !slices.ContainsFunc(m.services, func(s *corev1.Service) bool { return s.Name == "foiaflow-api" }) {
		t.Error("Service foiaflow-api is missing")
	}
	for _, s := range m.services {
		if len(s.Spec.Selector) == 0 {
			t.Errorf("Service %s has no selector", s.Name)
			continue
		}
		var pods []corev1.PodTemplateSpec
		for _, d := range m.deployments {
			if labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
				pods = append(pods, d.Spec.Template)
			}
		}
		if len(pods) == 0 {
			t.Errorf("Service %s selects no Deployment's pods", s.Name)
		}
		for _, sp := range s.Spec.Ports {
			if sp.TargetPort.Type != intstr.String {
				t.Errorf("Service %s port %s: use a named targetPort", s.Name, sp.Name)
				continue
			}
			for _, p := range pods {
				if !slices.ContainsFunc(p.Spec.Containers, func(c corev1.Container) bool {
					return slices.ContainsFunc(c.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == sp.TargetPort.StrVal })
				}) {
					t.Errorf("Service %s port %s: pods %v have no port named %q", s.Name, sp.Name, p.Labels, sp.TargetPort.StrVal)
				}
			}
		}
	}
}

func TestPDBsSelectAndAllowDisruption(t *testing.T) {
	t.Parallel()
	m, _ := loadManifests(t)
	for _, p := range m.pdbs {
		if (p.Spec.MinAvailable == nil) == (p.Spec.MaxUnavailable == nil) {
			t.Errorf("PDB %s: set exactly one of minAvailable and maxUnavailable", p.Name)
		}
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if err != nil || sel.Empty() {
			t.Errorf("PDB %s: selector %v: %v", p.Name, p.Spec.Selector, err)
			continue
		}
		var d *appsv1.Deployment
		for _, cand := range m.deployments {
			if sel.Matches(labels.Set(cand.Spec.Template.Labels)) {
				d = cand
			}
		}
		if d == nil {
			t.Errorf("PDB %s selects no Deployment's pods", p.Name)
			continue
		}
		// A PDB that forbids every eviction blocks node drains for good.
		if p.Spec.MinAvailable != nil && p.Spec.MinAvailable.Type == intstr.Int &&
			d.Spec.Replicas != nil && p.Spec.MinAvailable.IntVal >= *d.Spec.Replicas {
			t.Errorf("PDB %s: minAvailable %d with %d replicas allows no eviction", p.Name, p.Spec.MinAvailable.IntVal, *d.Spec.Replicas)
		}
		if p.Spec.MaxUnavailable != nil && p.Spec.MaxUnavailable.Type == intstr.Int && p.Spec.MaxUnavailable.IntVal < 1 {
			t.Errorf("PDB %s: maxUnavailable 0 allows no eviction", p.Name)
		}
	}
}

func TestMigrateJob(t *testing.T) {
	t.Parallel()
	m, _ := loadManifests(t)
	if len(m.jobs) != 1 {
		t.Fatalf("want one migrate Job, have %d", len(m.jobs))
	}
	j := m.jobs[0]
	ps := j.Spec.Template.Spec
	if ps.RestartPolicy != corev1.RestartPolicyNever && ps.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("restartPolicy %q", ps.RestartPolicy)
	}
	if j.Spec.BackoffLimit == nil || j.Spec.ActiveDeadlineSeconds == nil {
		t.Error("set backoffLimit and activeDeadlineSeconds so a failing migration stops")
	}
	if c := ps.Containers; len(c) != 1 || !slices.Equal(c[0].Command, []string{"/usr/local/bin/worker", "migrate"}) {
		t.Errorf("the Job must run `/usr/local/bin/worker migrate`")
	}
	checkPodSpec(t, &ps, false)
	for _, c := range ps.Containers {
		checkEnvRefs(t, m, c)
	}
}

// metricsAddrVar names the setting of each Deployment's unauthenticated
// /metrics, /healthz and /readyz listener. foiaflow binds it to loopback by
// default (issue 10), so a pod must set it to all interfaces: the kubelet
// probes and Prometheus scrapes the pod IP.
var metricsAddrVar = map[string]string{"foiaflow-worker": "WORKER_METRICS_ADDR", "foiaflow-scheduler": "SCHEDULER_METRICS_ADDR"}

func TestMetricsListenWhereProbedAndScraped(t *testing.T) {
	t.Parallel()
	m, _ := loadManifests(t)
	settings := map[string]string{}
	for _, cm := range m.configMaps {
		for k, v := range cm.Data {
			settings[k] = v
		}
	}
	for _, d := range m.deployments {
		name, ok := metricsAddrVar[d.Name]
		if !ok {
			continue
		}
		host, port, err := net.SplitHostPort(settings[name])
		if err != nil || (host != "" && host != "0.0.0.0") {
			t.Errorf("%s: %s=%q must listen on all interfaces (\":<port>\"): the default is loopback", d.Name, name, settings[name])
			continue
		}
		if got := d.Spec.Template.Annotations["prometheus.io/port"]; got != port {
			t.Errorf("%s: prometheus.io/port %q, but %s listens on %s", d.Name, got, name, port)
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, p := range c.Ports {
				if p.Name == "metrics" && fmt.Sprint(p.ContainerPort) != port {
					t.Errorf("%s: container port metrics is %d, but %s listens on %s", d.Name, p.ContainerPort, name, port)
				}
			}
		}
	}
}
