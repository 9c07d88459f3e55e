package archive

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDocsShowDeployFiles: docs/archive.md shows the sbatch script the
// Slurm test submits and the Kubernetes manifest as they are, and the
// manifest is an Indexed Job whose pods run --shard k8s with
// PRISM_SHARDS equal to its completions.
func TestDocsShowDeployFiles(t *testing.T) {
	manifest := "../../../deploy/kubernetes/prism-ltsa-job.yaml"
	for _, d := range []string{"docs/archive.md", "README.md"} {
		doc := string(readFile(t, "../../../"+d))
		for _, f := range []string{sbatchScript, manifest} {
			if body := string(readFile(t, f)); !strings.Contains(doc, "\n"+body+"```") {
				t.Errorf("%s does not show %s as it is", d, f)
			}
		}
	}
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import yaml").Run() != nil {
		if os.Getenv("PRISM_REQUIRE_TOOLS") == "1" {
			t.Fatal("python3-yaml not installed (PRISM_REQUIRE_TOOLS=1)")
		}
		t.Skip("python3-yaml not installed: the manifest is not parsed")
	}
	check := `
import sys, yaml
j = yaml.safe_load(open(sys.argv[1]))
s = j["spec"]; c = s["template"]["spec"]["containers"][0]
env = {e["name"]: e["value"] for e in c["env"]}
assert j["kind"] == "Job" and s["completionMode"] == "Indexed", "not an Indexed Job"
assert env["PRISM_SHARDS"] == str(s["completions"]), "PRISM_SHARDS is not the completions"
cmd = " ".join(c["command"])
assert "--shard k8s" in cmd and "$(JOB_COMPLETION_INDEX)" in cmd and "--resume" in cmd, cmd
`
	if b, err := exec.Command(py, "-c", check, manifest).CombinedOutput(); err != nil {
		t.Errorf("the manifest: %v\n%s", err, b)
	}
}
