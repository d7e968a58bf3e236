package testsupport

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// ModelGenerator is the script that writes the ONNX models the tests run
// (acl/sim/model/testdata/genmodels.py: the models, their inputs and the
// outputs numpy computes for them).
func ModelGenerator() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "acl", "sim", "model", "testdata", "genmodels.py")
}

// Models writes the test models into a new temporary directory and
// returns it. It needs Debian's python3-onnx (see [Python]); without it
// the test fails and says so.
func Models(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteModels(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// WriteModels writes the test models into dir, for tests that share one
// set between many cases (and remove dir themselves).
func WriteModels(dir string) error {
	py, err := python()
	if err != nil {
		return err
	}
	if out, err := exec.Command(py, ModelGenerator(), dir).CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", py, ModelGenerator(), err, out)
	}
	return nil
}

// Python is a python3 that imports onnx and numpy, which the scripts that
// write the tests' models need (scripts/install-toolchains.sh installs
// Debian's python3-onnx); without one the test fails and says so.
func Python(t testing.TB) string {
	t.Helper()
	py, err := python()
	if err != nil {
		t.Fatal(err)
	}
	return py
}

// python finds [Python]. Debian installs python3-onnx for its own
// /usr/bin/python3, which a python3 earlier on PATH (pyenv, a virtualenv)
// may not see, so that one is tried second.
func python() (string, error) {
	var tried []string
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(py)
		if err != nil {
			tried = append(tried, py+": "+err.Error())
			continue
		}
		if out, err := exec.Command(path, "-c", "import onnx, numpy").CombinedOutput(); err != nil {
			tried = append(tried, path+": "+string(out))
			continue
		}
		return path, nil
	}
	return "", fmt.Errorf("the test models need python3 with onnx and numpy (Debian: python3-onnx; run scripts/install-toolchains.sh): %q", tried)
}
