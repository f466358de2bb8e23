package k8scheck

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestManifestCommandsRun runs the sweep Job's pods' args for every index
// and then the merge Job's args with the real simulate, the volume and the
// config map mapped to directories, and checks the merged sweep against the
// same sweep run unsharded. Only the scenario's runs are cut (--set
// runs=2000) so that the test is quick; the flags are the manifests' own.
func TestManifestCommandsRun(t *testing.T) {
	o := objects(t)
	tmp := t.TempDir()
	simulate := filepath.Join(tmp, "simulate")
	build := exec.Command("go", "build", "-o", simulate, "./cmd/simulate")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/simulate: %v\n%s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(tmp, "scenario"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "scenario", "scenario.yaml"), []byte(o.scenario.Data["scenario.yaml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	mapPaths := strings.NewReplacer("/scenario/", tmp+"/scenario/", "/data/", tmp+"/data/")
	run := func(args ...string) {
		t.Helper()
		out, err := exec.Command(simulate, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("simulate %q: %v\n%s", args, err, out)
		}
	}
	sweepC := o.sweep.Spec.Template.Spec.Containers[0]
	shards := int(*o.sweep.Spec.Completions)
	var whole []string
	for i := range shards {
		var args []string
		for _, a := range sweepC.Args {
			a = strings.NewReplacer("$(SHARD)", fmt.Sprint(i), "$(SHARDS)", fmt.Sprint(shards)).Replace(a)
			args = append(args, mapPaths.Replace(a))
			if i == 0 && !strings.HasPrefix(a, "--shard=") && !strings.HasPrefix(a, "--out=") {
				whole = append(whole, mapPaths.Replace(a))
			}
		}
		run(append(args, "--set=runs=2000")...)
	}
	var mergeArgs []string
	for _, a := range o.merge.Spec.Template.Spec.Containers[0].Args {
		mergeArgs = append(mergeArgs, mapPaths.Replace(a))
	}
	run(mergeArgs...)
	run(append(whole, "--set=runs=2000", "--out="+filepath.Join(tmp, "whole"))...)
	for _, f := range []string{"sweep.csv", "sweep.json"} {
		merged, err := os.ReadFile(filepath.Join(tmp, "data", "out", f))
		if err != nil {
			t.Fatal(err)
		}
		unsharded, err := os.ReadFile(filepath.Join(tmp, "whole", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(merged, unsharded) {
			t.Errorf("%s merged from the %d shards differs from the unsharded sweep's", f, shards)
		}
	}
}

// apiServer answers GET /apis/batch/v1/namespaces/ns/jobs/budgetsim-sweep
// as the API server does (compact JSON of a batch/v1 Job, given
// ?pretty=false), with status taken from status() at each request.
type apiServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests int
	bad      []string
}

func newAPIServer(t *testing.T, status func(n int) (int, batchv1.JobStatus)) *apiServer {
	s := &apiServer{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		n := s.requests
		if r.URL.Path != "/apis/batch/v1/namespaces/ns/jobs/budgetsim-sweep" || r.URL.RawQuery != "pretty=false" || r.Header.Get("Authorization") != "Bearer the-token" {
			s.bad = append(s.bad, fmt.Sprintf("%s %s (Authorization %q)", r.Method, r.URL, r.Header.Get("Authorization")))
		}
		s.mu.Unlock()
		code, st := status(n)
		if code != http.StatusOK {
			http.Error(w, `{"kind":"Status","status":"Failure","reason":"Forbidden"}`, code)
			return
		}
		job := batchv1.Job{Status: st}
		job.APIVersion, job.Kind, job.Name, job.Namespace = "batch/v1", "Job", "budgetsim-sweep", "ns"
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(job); err != nil {
			t.Error(err)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// TestWaitForShards runs the merge Job's init script (from the manifest)
// with sh and curl against a TLS server answering for the sweep Job, with
// the service account's CA and token in a directory, as in a pod.
func TestWaitForShards(t *testing.T) {
	for _, tool := range []string{"sh", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the wait-for-shards script needs %s (apt-get install %s): %v", tool, tool, err)
		}
	}
	script := objects(t).waitForShardsText
	failed := func(cond batchv1.JobConditionType) []batchv1.JobCondition {
		return []batchv1.JobCondition{{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue}, {Type: cond, Status: corev1.ConditionTrue, Reason: "DeadlineExceeded"}}
	}
	for _, c := range []struct {
		name     string
		present  []int // shard files there at the start
		later    []int // shard files written after the second request
		status   func(n int) (int, batchv1.JobStatus)
		exit     int
		stderr   string
		requests int // at least
	}{
		{name: "all shards there", present: []int{0, 1, 2, 3}, exit: 0, requests: 0,
			status: func(int) (int, batchv1.JobStatus) { return 200, batchv1.JobStatus{} }},
		{name: "a slice failed for good", present: []int{0, 2, 3}, exit: 3, stderr: "slice(s) 1 of job/budgetsim-sweep failed for good", requests: 1,
			status: func(int) (int, batchv1.JobStatus) { return 200, batchv1.JobStatus{FailedIndexes: ptr("1")} }},
		{name: "failed ranges, some rerun", present: []int{0, 2}, exit: 3, stderr: "slice(s) 1 3 of job", requests: 1,
			status: func(int) (int, batchv1.JobStatus) { return 200, batchv1.JobStatus{FailedIndexes: ptr("0,1-3")} }},
		{name: "failed slices rerun, one still running", present: []int{1, 2, 3}, later: []int{0}, exit: 0, requests: 2,
			status: func(int) (int, batchv1.JobStatus) {
				return 200, batchv1.JobStatus{FailedIndexes: ptr("1-2"), Active: 1}
			}},
		{name: "the sweep Job failed", present: []int{0, 1}, exit: 3, stderr: "job/budgetsim-sweep failed with shard(s) 2 3 missing", requests: 1,
			status: func(int) (int, batchv1.JobStatus) {
				return 200, batchv1.JobStatus{Conditions: failed(batchv1.JobFailed)}
			}},
		{name: "forbidden, then the shards arrive", present: []int{0, 1, 2}, later: []int{3}, exit: 0, stderr: "cannot read job/budgetsim-sweep", requests: 2,
			status: func(int) (int, batchv1.JobStatus) { return 403, batchv1.JobStatus{} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			shardDir := filepath.Join(tmp, "shards")
			account := filepath.Join(tmp, "serviceaccount")
			for _, d := range []string{shardDir, account} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			write := func(i int) {
				if err := os.WriteFile(filepath.Join(shardDir, fmt.Sprintf("shard-%d-of-4.json", i)), []byte("{}"), 0o644); err != nil {
					t.Error(err)
				}
			}
			for _, i := range c.present {
				write(i)
			}
			srv := newAPIServer(t, func(n int) (int, batchv1.JobStatus) {
				if n == 2 {
					for _, i := range c.later {
						write(i)
					}
				}
				return c.status(n)
			})
			ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
			if err := os.WriteFile(filepath.Join(account, "ca.crt"), ca, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(account, "token"), []byte("the-token"), 0o644); err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse(srv.URL)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "sh", "-c", script)
			cmd.Env = append(os.Environ(), "SHARDS=4", "SHARD_DIR="+shardDir, "SWEEP_JOB=budgetsim-sweep", "POLL_SECONDS=1",
				"SERVICE_ACCOUNT="+account, "NAMESPACE=ns", "KUBERNETES_SERVICE_HOST="+u.Hostname(), "KUBERNETES_SERVICE_PORT="+u.Port())
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("still waiting after 30 s:\n%s%s", stdout.String(), stderr.String())
			}
			code := 0
			if e, ok := err.(*exec.ExitError); ok {
				code = e.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			if code != c.exit || !strings.Contains(stderr.String(), c.stderr) || srv.requests < c.requests || len(srv.bad) > 0 {
				t.Errorf("exit %d after %d request(s), want exit %d after at least %d, stderr containing %q; bad requests %q\nstdout:\n%s\nstderr:\n%s",
					code, srv.requests, c.exit, c.requests, c.stderr, srv.bad, stdout.String(), stderr.String())
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
