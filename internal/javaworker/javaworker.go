// Package javaworker finds the Java worker SDK's examples jar
// (worker/java/examples/target/jobwheel-worker-examples.jar) for the tests
// that start a real Java worker: the conformance kit's TestJavaSDK and the
// e2e tests. It builds the jar with Maven when no jar is newer than every
// source of the Java worker — once per `make test`, whose test-java target
// builds it first, and at most once per change when a test runs alone.
package javaworker

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DebianRepo is where Debian's packaged jars live as a Maven repository;
// with it the build runs offline (the Makefile installs the packages).
const DebianRepo = "/usr/share/maven-repo"

// ExampleMain and ConformanceMain are the examples jar's main classes.
const (
	ExampleMain     = "io.jobwheel.examples.ExampleWorker"
	ConformanceMain = "io.jobwheel.examples.ConformanceWorker"
)

var (
	once   sync.Once
	jar    string
	jarErr error
)

// Jar returns the examples jar's path, building it first if it is missing
// or older than a source. Processes running tests at the same time take
// turns (a file lock), so the jar is built once.
func Jar() (string, error) {
	once.Do(func() { jar, jarErr = build() })
	return jar, jarErr
}

// Java is the java command: JAVA_HOME's, else the one on PATH.
func Java() (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		if p := filepath.Join(home, "bin", "java"); isExec(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("java is needed to run the Java worker (make test-deps installs a JDK): %w", err)
	}
	return p, nil
}

// Command is the java command line that runs main from the examples jar.
func Command(main string) ([]string, error) {
	java, err := Java()
	if err != nil {
		return nil, err
	}
	j, err := Jar()
	if err != nil {
		return nil, err
	}
	return []string{java, "-cp", j, main}, nil
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// root is the repository root: the directory above with go.mod.
func root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func build() (string, error) {
	r, err := root()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(r, "worker", "java")
	out := filepath.Join(dir, "examples", "target", "jobwheel-worker-examples.jar")
	if err := os.MkdirAll(filepath.Join(dir, "examples", "target"), 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "examples", "target", ".build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("locking the Java build: %w", err)
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
	newest, err := newestSource(dir)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(out); err == nil && st.ModTime().After(newest) {
		return out, nil
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return "", fmt.Errorf("mvn is needed to build the Java worker (make test-deps installs Maven and Debian's jars): %w", err)
	}
	cmd := exec.Command(mvn, append(MavenFlags(), "-DskipTests", "package")...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the Java worker (cd worker/java && mvn %s -DskipTests package): %w\n%s",
			strings.Join(MavenFlags(), " "), err, b)
	}
	return out, nil
}

// MavenFlags are Maven's flags here: quiet and batch, and offline against
// Debian's jars when they are installed (Maven Central is not reachable on
// these machines); elsewhere Maven resolves as usual.
func MavenFlags() []string {
	flags := []string{"-q", "-B"}
	if _, err := os.Stat(filepath.Join(DebianRepo, "com", "fasterxml", "jackson", "core", "jackson-databind")); err == nil {
		flags = append(flags, "-o", "-Dmaven.repo.local="+DebianRepo)
	}
	return flags
}

// newestSource is the modification time of the newest pom or source file
// of the Java worker.
func newestSource(dir string) (time.Time, error) {
	var newest time.Time
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "target" {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(p, ".java") || d.Name() == "pom.xml") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.ModTime().After(newest) {
			newest = info.ModTime()
		}
		return nil
	})
	return newest, err
}
