package k8scheck

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// params are the values a user fills in (deploy/README.md).
var params = map[string]string{
	"IMAGE":         "registry.example.com/you/simulate:v1",
	"STORAGE_CLASS": "nfs-client",
	"SHARD":         "3",
}

// load renders and strictly decodes deploy/NAME.
func load(t *testing.T, name string) []Document {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", name))
	if err != nil {
		t.Fatal(err)
	}
	rendered, err := Render(string(text), params)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	docs, err := Decode(name, []byte(rendered))
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// TestEveryDocumentDecodesStrictly: every document of every YAML file in
// deploy/ decodes strictly into its API type, and the files hold the
// objects deploy/README.md describes, in that order.
func TestEveryDocumentDecodesStrictly(t *testing.T) {
	want := map[string][]string{
		"k8s-indexed-job.yaml": {"PersistentVolumeClaim budgetsim-data", "ConfigMap budgetsim-scenario", "Job budgetsim-sweep",
			"ServiceAccount budgetsim-merge", "Role budgetsim-merge", "RoleBinding budgetsim-merge", "Job budgetsim-merge"},
		"k8s-rerun-shard.yaml": {"Job budgetsim-sweep-rerun-3"},
	}
	files, err := filepath.Glob("../*.y*ml")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if !reflect.DeepEqual(names, []string{"k8s-indexed-job.yaml", "k8s-rerun-shard.yaml"}) {
		t.Errorf("YAML files in deploy/: %v; add the new ones to this test", names)
	}
	for _, name := range names {
		var got []string
		for _, d := range load(t, name) {
			got = append(got, fmt.Sprintf("%T %s", d.Object, objectName(d.Object)))
		}
		var w []string
		for _, k := range want[name] {
			kind, n, _ := strings.Cut(k, " ")
			w = append(w, fmt.Sprintf("*v1.%s %s", kind, n))
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s decodes to\n%v\nwant\n%v", name, got, w)
		}
	}
}

func objectName(o runtime.Object) string {
	m, err := meta.Accessor(o)
	if err != nil {
		return err.Error()
	}
	return m.GetName()
}

// TestDecodeIsStrict: the mistakes strict decoding is there to catch are
// errors that name the field, not documents the API server would accept
// with the field silently dropped.
func TestDecodeIsStrict(t *testing.T) {
	job := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  %s\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: i}]\n"
	for _, c := range []struct{ doc, want string }{
		{fmt.Sprintf(job, "completionMod: Indexed"), `unknown field "spec.completionMod"`},
		{fmt.Sprintf(job, "completions: eight"), "spec.completions"},
		{fmt.Sprintf(job, "backoffLimitPerIndex: 2\n  backoffLimitPerIndex: 3"), `key "backoffLimitPerIndex" already set`},
		{fmt.Sprintf(job, "podFailurePolicy: {rules: [{action: FailJob, onExitCode: {values: [3]}}]}"), `unknown field "spec.podFailurePolicy.rules[0].onExitCode"`},
		{"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: p}\nspec: {accessModes: [ReadWriteMany], storageClass: x}\n", `unknown field "spec.storageClass"`},
		{"apiVersion: batch/v1\nkind: CronJobb\nmetadata: {name: x}\n", `no kind "CronJobb"`},
	} {
		_, err := Decode("bad.yaml", []byte("---\n"+c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.yaml: document 1") {
			t.Errorf("Decode(%q) = %v, want an error naming bad.yaml: document 1 and containing %q", c.doc, err, c.want)
		}
	}
}

// TestRenderNamesMissingParameters: a ${NAME} left without a value is an
// error, so no document is applied with a literal ${STORAGE_CLASS}.
func TestRenderNamesMissingParameters(t *testing.T) {
	_, err := Render("image: ${IMAGE}\nclass: ${STORAGE_CLASS}\nkeep: $(SHARD)\n", map[string]string{"IMAGE": "i"})
	if err == nil || err.Error() != "no value for parameter(s) STORAGE_CLASS" {
		t.Errorf("Render = %v, want it to name STORAGE_CLASS", err)
	}
	got, err := Render("image: ${IMAGE} keep: $(SHARD)", map[string]string{"IMAGE": "i"})
	if err != nil || got != "image: i keep: $(SHARD)" {
		t.Errorf("Render = %q, %v; want Kubernetes' $(SHARD) kept", got, err)
	}
}

// sweepObjects are the objects of the two files, by role.
type sweepObjects struct {
	claim             *corev1.PersistentVolumeClaim
	scenario          *corev1.ConfigMap
	sweep, merge      *batchv1.Job
	rerun             *batchv1.Job
	account           *corev1.ServiceAccount
	role              *rbacv1.Role
	binding           *rbacv1.RoleBinding
	waitForShardsText string
}

func objects(t *testing.T) sweepObjects {
	t.Helper()
	var o sweepObjects
	docs := append(load(t, "k8s-indexed-job.yaml"), load(t, "k8s-rerun-shard.yaml")...)
	for _, d := range docs {
		switch v := d.Object.(type) {
		case *corev1.PersistentVolumeClaim:
			o.claim = v
		case *corev1.ConfigMap:
			o.scenario = v
		case *corev1.ServiceAccount:
			o.account = v
		case *rbacv1.Role:
			o.role = v
		case *rbacv1.RoleBinding:
			o.binding = v
		case *batchv1.Job:
			switch v.Name {
			case "budgetsim-sweep":
				o.sweep = v
			case "budgetsim-merge":
				o.merge = v
			default:
				o.rerun = v
			}
		}
	}
	if o.claim == nil || o.scenario == nil || o.sweep == nil || o.merge == nil || o.rerun == nil || o.account == nil || o.role == nil || o.binding == nil {
		t.Fatalf("deploy/ lacks an object: %+v", o)
	}
	init := o.merge.Spec.Template.Spec.InitContainers
	if len(init) != 1 || len(init[0].Command) != 3 || init[0].Command[0] != "sh" || init[0].Command[1] != "-c" {
		t.Fatalf("the merge Job's init container is not one `sh -c SCRIPT`: %+v", init)
	}
	o.waitForShardsText = init[0].Command[2]
	return o
}

func env(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// TestJobsAgree: what must be equal across the Jobs is equal, so that the
// shards merge: the shard count, the sweep flags, the image, the volume
// and the scenario; the claim can be shared across nodes; the merge Job
// can read the sweep Job and fails at once when the wait says a slice
// failed for good.
func TestJobsAgree(t *testing.T) {
	o := objects(t)
	sweepC := o.sweep.Spec.Template.Spec.Containers[0]
	rerunC := o.rerun.Spec.Template.Spec.Containers[0]
	mergeC := o.merge.Spec.Template.Spec.Containers[0]
	waitC := o.merge.Spec.Template.Spec.InitContainers[0]

	if o.sweep.Spec.CompletionMode == nil || *o.sweep.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("the sweep Job is not Indexed")
	}
	shards := env(sweepC, "SHARDS")
	counts := map[string]string{
		"sweep spec.completions": fmt.Sprint(*o.sweep.Spec.Completions),
		"sweep spec.parallelism": fmt.Sprint(*o.sweep.Spec.Parallelism),
		"rerun SHARDS":           env(rerunC, "SHARDS"),
		"merge SHARDS":           env(waitC, "SHARDS"),
	}
	for where, n := range counts {
		if n != shards {
			t.Errorf("%s = %s, but the sweep's SHARDS = %s", where, n, shards)
		}
	}
	if env(rerunC, "SHARD") != params["SHARD"] || o.rerun.Name != "budgetsim-sweep-rerun-"+params["SHARD"] {
		t.Errorf("the rerun Job %s runs SHARD=%q, want %s", o.rerun.Name, env(rerunC, "SHARD"), params["SHARD"])
	}
	if !reflect.DeepEqual(sweepC.Args, rerunC.Args) {
		t.Errorf("the rerun Job's args differ from the sweep Job's (the merge would refuse the shard):\n%q\n%q", rerunC.Args, sweepC.Args)
	}
	if !slices.Contains(sweepC.Args, "--shard=$(SHARD)/$(SHARDS)") {
		t.Errorf("the sweep's args do not shard by $(SHARD)/$(SHARDS): %q", sweepC.Args)
	}
	for _, c := range []corev1.Container{sweepC, rerunC, mergeC} {
		if c.Image != params["IMAGE"] || len(c.Command) != 0 {
			t.Errorf("container %s: image %q, command %q; want ${IMAGE} with its entrypoint (args only)", c.Name, c.Image, c.Command)
		}
	}
	if !slices.Contains(o.claim.Spec.AccessModes, corev1.ReadWriteMany) || o.claim.Spec.StorageClassName == nil || *o.claim.Spec.StorageClassName != params["STORAGE_CLASS"] {
		t.Errorf("the claim: access modes %v, storageClassName %v; want ReadWriteMany and ${STORAGE_CLASS}", o.claim.Spec.AccessModes, o.claim.Spec.StorageClassName)
	}
	for _, j := range []*batchv1.Job{o.sweep, o.rerun, o.merge} {
		var claim, scenario string
		for _, v := range j.Spec.Template.Spec.Volumes {
			if v.PersistentVolumeClaim != nil {
				claim = v.PersistentVolumeClaim.ClaimName
			}
			if v.ConfigMap != nil {
				scenario = v.ConfigMap.Name
			}
		}
		if claim != o.claim.Name || scenario != o.scenario.Name {
			t.Errorf("Job %s mounts claim %q and config map %q, want %q and %q", j.Name, claim, scenario, o.claim.Name, o.scenario.Name)
		}
	}
	if _, ok := o.scenario.Data["scenario.yaml"]; !ok || !slices.Contains(sweepC.Args, "/scenario/scenario.yaml") {
		t.Errorf("the sweep's scenario /scenario/scenario.yaml is not the config map's scenario.yaml key")
	}

	// The merge Job may get the sweep Job, and an exit 3 of the wait fails it.
	if o.merge.Spec.Template.Spec.ServiceAccountName != o.account.Name {
		t.Errorf("the merge Job runs as %q, not %q", o.merge.Spec.Template.Spec.ServiceAccountName, o.account.Name)
	}
	if o.binding.RoleRef.Name != o.role.Name || len(o.binding.Subjects) != 1 || o.binding.Subjects[0].Name != o.account.Name {
		t.Errorf("the RoleBinding does not bind %s to %s: %+v", o.role.Name, o.account.Name, o.binding)
	}
	rule := o.role.Rules[0]
	if len(o.role.Rules) != 1 || !reflect.DeepEqual(rule.APIGroups, []string{"batch"}) || !reflect.DeepEqual(rule.Resources, []string{"jobs"}) ||
		!reflect.DeepEqual(rule.Verbs, []string{"get"}) || !reflect.DeepEqual(rule.ResourceNames, []string{env(waitC, "SWEEP_JOB")}) || env(waitC, "SWEEP_JOB") != o.sweep.Name {
		t.Errorf("the Role should allow only get on jobs/%s: %+v", o.sweep.Name, o.role.Rules)
	}
	p := o.merge.Spec.PodFailurePolicy
	if p == nil || len(p.Rules) != 1 || p.Rules[0].Action != batchv1.PodFailurePolicyActionFailJob || p.Rules[0].OnExitCodes == nil ||
		*p.Rules[0].OnExitCodes.ContainerName != waitC.Name || !reflect.DeepEqual(p.Rules[0].OnExitCodes.Values, []int32{3}) {
		t.Errorf("the merge Job does not fail at once when %s exits 3: %+v", waitC.Name, p)
	}
	if o.merge.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("a pod failure policy needs restartPolicy Never")
	}
	// Kubernetes replaces $(NAME) in a command with the container's
	// variable NAME before the shell sees it; the script must not use that
	// form for its own variables or command substitutions.
	for _, m := range regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`).FindAllStringSubmatch(o.waitForShardsText, -1) {
		for _, e := range waitC.Env {
			if e.Name == m[1] {
				t.Errorf("the wait script uses %s, which Kubernetes would expand before sh runs it", m[0])
			}
		}
	}
	if !slices.Contains(mergeC.Args, env(waitC, "SHARD_DIR")) {
		t.Errorf("the merge reads %q, the wait watches %q", mergeC.Args, env(waitC, "SHARD_DIR"))
	}
}
