package importer

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/cmd/jobwheel/internal/manifest"
	"github.com/jobwheel/jobwheel/server/runtime/workflow/wfexpr"
)

// TestDecision: a PowerJob Groovy decision is translated where expr-lang
// says the same — evaluated by the server's own evaluator, it picks the
// branch Groovy picked — and otherwise kept as comments in an expression
// that yields nil, which the server accepts and which fails the node
// when it runs rather than pick a branch.
func TestDecision(t *testing.T) {
	eval := func(t *testing.T, expr string, ctx map[string]any) any {
		t.Helper()
		if _, err := wfexpr.Compile(expr); err != nil {
			t.Fatalf("%q does not compile: %v", expr, err)
		}
		v, err := wfexpr.Eval(context.Background(), expr, wfexpr.Env(ctx, map[string]any{}), wfexpr.Limits{})
		if err != nil {
			t.Fatalf("%q over %v: %v", expr, ctx, err)
		}
		return v
	}
	for _, tc := range []struct {
		groovy string
		exact  bool
		// Contexts it is true and false over.
		yes, no map[string]any
	}{
		{groovy: "true;", exact: true, yes: map[string]any{}},
		{groovy: "return false", exact: true, no: map[string]any{}},
		{groovy: `context.region == 'cn' && context.get("mode") != "dry";`,
			yes: map[string]any{"region": "cn", "mode": "live"}, no: map[string]any{"region": "cn", "mode": "dry"}},
		{groovy: `context['a b'].equals("x") || context.b == null`,
			yes: map[string]any{"a b": "y"}, no: map[string]any{"a b": "y", "b": "set"}},
		{groovy: `!context.flag.equals('on')`, yes: map[string]any{"flag": "off"}, no: map[string]any{"flag": "on"}},
		{groovy: `!(context.x == "1") && ("2" == context.y)`, yes: map[string]any{"x": "0", "y": "2"}, no: map[string]any{"x": "1", "y": "2"}},
	} {
		expr, exact, ok := decision(tc.groovy)
		if !ok || exact != tc.exact {
			t.Errorf("%q: translated %v, exact %v; want translated, exact %v (%q)", tc.groovy, ok, exact, tc.exact, expr)
			continue
		}
		if tc.yes != nil && eval(t, expr, tc.yes) != true {
			t.Errorf("%q as %q over %v: not true", tc.groovy, expr, tc.yes)
		}
		if tc.no != nil && eval(t, expr, tc.no) != false {
			t.Errorf("%q as %q over %v: not false", tc.groovy, expr, tc.no)
		}
	}
	for _, groovy := range []string{
		"def n = Integer.parseInt(context.count); return n > 100",
		`context.flag`,                // Groovy's truth of a string
		`context.n > 5`,               // a string compared with a number
		`context.a == "${context.b}"`, // a GString
		`context.a == 'x'; context.b`, // two statements
		`!context.flag`,               // Groovy's truth again
		"context.a == '*/ nil //'\n" + strings.Repeat("// long\n", 400), // over 2 KiB, with comment marks
	} {
		expr, _, ok := decision(groovy)
		if ok {
			t.Errorf("%q translated to %q; want it left to a person", groovy, expr)
			continue
		}
		if len(expr) > wfexpr.MaxBytes || !strings.Contains(expr, "PowerJob's Groovy decision") {
			t.Errorf("%q kept as %d bytes %q", groovy, len(expr), expr)
		}
		if v := eval(t, expr, map[string]any{"count": "7", "flag": "on"}); v != nil {
			t.Errorf("%q's expression yields %v; want nil, which fails the node", groovy, v)
		}
	}
}

// TestGlueScripts: an xxl-job GLUE script runs as xxl-job ran it — the
// same interpreter, with the run's parameters (else the job's), the shard
// index and the shard total (1 outside a broadcast) as its arguments —
// from the environment a jobwheel script gets (docs/jobs.md).
func TestGlueScripts(t *testing.T) {
	run := func(t *testing.T, processorType, processor string, env ...string) string {
		t.Helper()
		dir := t.TempDir()
		file, interp := filepath.Join(dir, "job.sh"), "/bin/sh"
		if processorType == "PYTHON" {
			file, interp = filepath.Join(dir, "job.py"), "python3"
		}
		if err := os.WriteFile(file, []byte(processor), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(interp, file, "job-params-arg", "run-params-arg")
		cmd.Dir = dir
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "JOBWHEEL_JOB_PARAMS=keep=7", "JOBWHEEL_SHARD_INDEX=0", "JOBWHEEL_SHARD_TOTAL=0"}, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s job: %v\n%s\nprocessor:\n%s", processorType, err, out, processor)
		}
		return string(out)
	}
	shell := "#!/bin/bash\nset -e\necho \"param=$1 shard=$2/$3\"\nif [[ \"$1\" == keep* ]]; then echo bash-only; fi\necho JOBWHEEL_GLUE_EOF"
	pt, p, ok := glueScript("GLUE_SHELL", shell)
	if !ok || pt != "SHELL" {
		t.Fatalf("GLUE_SHELL: %s, %v", pt, ok)
	}
	if got := run(t, pt, p); got != "param=keep=7 shard=0/1\nbash-only\nJOBWHEEL_GLUE_EOF\n" {
		t.Errorf("GLUE_SHELL with the job's params:\n%s", got)
	}
	if got := run(t, pt, p, "JOBWHEEL_INSTANCE_PARAMS=manual", "JOBWHEEL_SHARD_INDEX=2", "JOBWHEEL_SHARD_TOTAL=3"); !strings.HasPrefix(got, "param=manual shard=2/3\n") {
		t.Errorf("GLUE_SHELL with a run's params, in a broadcast:\n%s", got)
	}

	python := "# -*- coding: utf-8 -*-\nfrom __future__ import print_function\nimport sys\nprint('argv', sys.argv[1:])\n"
	pt, p, ok = glueScript("GLUE_PYTHON", python)
	if !ok || pt != "PYTHON" || !strings.HasPrefix(p, "# -*- coding: utf-8 -*-\nfrom __future__ import print_function\nimport os, sys") {
		t.Fatalf("GLUE_PYTHON: %s, %v:\n%s", pt, ok, p)
	}
	if got := run(t, pt, p, "JOBWHEEL_SHARD_INDEX=1", "JOBWHEEL_SHARD_TOTAL=2"); got != "argv ['keep=7', '1', '2']\n" {
		t.Errorf("GLUE_PYTHON:\n%s", got)
	}
	// A __future__ import after a docstring cannot have lines before it:
	// the script runs from a SHELL job instead, the same way.
	late := "\"\"\"Stats.\"\"\"\nfrom __future__ import print_function\nimport sys\nprint('argv', sys.argv[1:])\n"
	pt, p, ok = glueScript("GLUE_PYTHON", late)
	if !ok || pt != "SHELL" {
		t.Fatalf("GLUE_PYTHON with a late __future__: %s, %v", pt, ok)
	}
	if got := run(t, pt, p); got != "argv ['keep=7', '0', '1']\n" {
		t.Errorf("GLUE_PYTHON run from SHELL:\n%s", got)
	}
	for _, typ := range []string{"GLUE_NODEJS", "GLUE_PHP", "GLUE_POWERSHELL", "GLUE_PYTHON2"} {
		pt, p, ok := glueScript(typ, "code")
		if !ok || pt != "SHELL" || !strings.Contains(p, "exec "+glueTypes[typ].cmd+" ./glue"+glueTypes[typ].suffix+" ") {
			t.Errorf("%s: %s, %v:\n%s", typ, pt, ok, p)
		}
	}
	for _, typ := range []string{"BEAN", "GLUE_GROOVY", "GLUE_COBOL"} {
		if _, _, ok := glueScript(typ, "x"); ok {
			t.Errorf("%s is taken for a script", typ)
		}
	}
}

// TestNames: names become valid jobwheel names, the same on every import,
// and names the source shares get their ids.
func TestNames(t *testing.T) {
	for in, want := range map[string]string{"order-service": "order-service", "Report_Center": "report_center",
		"订单 服务": "app-7", " My App!! v2 ": "my-app-v2", "-x": "x", strings.Repeat("a", 70): strings.Repeat("a", 64)} {
		if got := appName(in, 7); got != want {
			t.Errorf("appName(%q) = %q; want %q", in, got, want)
		}
	}
	objs := []*Object{{Kind: manifest.KindJob}, {Kind: manifest.KindJob}, {Kind: manifest.KindJob}, {Kind: manifest.KindJob}}
	uniqueNames([]named{{objs[0], "audit", 11}, {objs[1], "audit", 12}, {objs[2], "line one\nline two", 13}, {objs[3], "  ", 14}}, "job")
	for i, want := range []string{"audit #11", "audit #12", "line one line two", "job-14"} {
		if objs[i].Name != want {
			t.Errorf("object %d named %q; want %q", i, objs[i].Name, want)
		}
		if len(objs[i].Notes) != 1 {
			t.Errorf("object %d's rename is not noted: %v", i, objs[i].Notes)
		}
	}
}

// TestParseDSN: both forms of a database's address are read, and a
// password never shows in a message.
func TestParseDSN(t *testing.T) {
	cfg, err := parseDSN("mysql://reader:s3cret@db.internal/xxl_job?charset=utf8mb4")
	if err != nil || cfg.User != "reader" || cfg.Passwd != "s3cret" || cfg.Addr != "db.internal:3306" || cfg.DBName != "xxl_job" {
		t.Fatalf("URL: %+v, %v", cfg, err)
	}
	cfg, err = parseDSN("root@tcp(127.0.0.1:3307)/powerjob")
	if err != nil || cfg.User != "root" || cfg.Addr != "127.0.0.1:3307" || cfg.DBName != "powerjob" {
		t.Fatalf("DSN: %+v, %v", cfg, err)
	}
	if _, err := parseDSN("reader:s3cret@tcp(127.0.0.1:3306/x"); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("a bad DSN: %v", err)
	}
}
