package importer

import (
	"fmt"
	"strings"
)

// glue is how an xxl-job GLUE type's script runs: the interpreter
// xxl-job's executor ran it with (GlueTypeEnum's cmd) and the file's
// suffix.
type glue struct {
	cmd, suffix string
}

var glueTypes = map[string]glue{
	"GLUE_SHELL":      {"bash", ".sh"},
	"GLUE_PYTHON":     {"python3", ".py"},
	"GLUE_PYTHON2":    {"python", ".py"},
	"GLUE_NODEJS":     {"node", ".js"},
	"GLUE_POWERSHELL": {"pwsh", ".ps1"},
	"GLUE_PHP":        {"php", ".php"},
}

// glueScript is an xxl-job GLUE script as a jobwheel job's processor.
// xxl-job's executor wrote the script to a file and ran `<cmd> <file>
// <param> <shard index> <shard total>`, where param is the trigger's
// parameter if given, else the job's. A GLUE_PYTHON script becomes a
// PYTHON job, with two lines in front setting sys.argv so; every other
// one (and a Python script those lines cannot go in front of) a SHELL job
// that writes the script to a file in its working directory and runs the
// same interpreter on it with the same arguments. ok is false for a GLUE
// type that is no script (BEAN, GLUE_GROOVY) or unknown.
func glueScript(glueType, source string) (processorType, processor string, ok bool) {
	g, ok := glueTypes[glueType]
	if !ok {
		return "", "", false
	}
	if glueType == "GLUE_PYTHON" {
		if p, ok := pythonWithArgv(source); ok {
			return "PYTHON", p, true
		}
	}
	return "SHELL", shellRunning(glueType, g, source), true
}

// The arguments xxl-job passed a script, from what a jobwheel script
// sees (docs/jobs.md): a run's parameters if given, else the job's; the
// shard index; the shard total, at least 1 (xxl-job's was 1 outside
// SHARDING_BROADCAST, jobwheel's is 0).
const shellArgs = `total=${JOBWHEEL_SHARD_TOTAL:-0}; [ "$total" -gt 0 ] || total=1
`

func shellRunning(glueType string, g glue, source string) string {
	file := "./glue" + g.suffix
	eof := "JOBWHEEL_GLUE_EOF"
	for lines := strings.Split(source, "\n"); containsLine(lines, eof); {
		eof += "_"
	}
	if !strings.HasSuffix(source, "\n") {
		source += "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Imported from xxl-job (%s): the script between the %s lines runs as xxl-job ran it,\n", glueType, eof)
	fmt.Fprintf(&b, "# %s <script> <param> <shard index> <shard total>.\n", g.cmd)
	fmt.Fprintf(&b, "cat > %s <<'%s'\n%s%s\n", file, eof, source, eof)
	b.WriteString(shellArgs)
	fmt.Fprintf(&b, "exec %s %s \"${JOBWHEEL_INSTANCE_PARAMS:-$JOBWHEEL_JOB_PARAMS}\" \"${JOBWHEEL_SHARD_INDEX:-0}\" \"$total\"\n", g.cmd, file)
	return b.String()
}

func containsLine(lines []string, s string) bool {
	for _, l := range lines {
		if strings.TrimRight(l, "\r") == s {
			return true
		}
	}
	return false
}

// pythonArgv are the lines a GLUE_PYTHON script gets in front.
const pythonArgv = `import os, sys  # added by jobwheel import: sys.argv as xxl-job passed it (param, shard index, shard total)
sys.argv[1:] = [os.environ.get("JOBWHEEL_INSTANCE_PARAMS") or os.environ.get("JOBWHEEL_JOB_PARAMS", ""), os.environ.get("JOBWHEEL_SHARD_INDEX", "0"), str(max(1, int(os.environ.get("JOBWHEEL_SHARD_TOTAL") or 0)))]
`

// pythonWithArgv puts pythonArgv in a Python script after its leading
// comments (a #! line, a coding line) and `from __future__` imports,
// which must stay first; not ok when a __future__ import comes later
// (after a docstring, say), where the lines would break it.
func pythonWithArgv(source string) (string, bool) {
	lines := strings.SplitAfter(source, "\n")
	at := 0
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "from __future__ import") {
			at = i + 1
			continue
		}
		break
	}
	head, tail := strings.Join(lines[:at], ""), strings.Join(lines[at:], "")
	if strings.Contains(tail, "from __future__") {
		return "", false
	}
	if head != "" && !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	return head + pythonArgv + tail, true
}

// download is a script PowerJob fetched from a URL at every run, as a
// SHELL job that does the same with curl, then runs it with cmd.
func download(url, cmd, file string) string {
	q := "'" + strings.ReplaceAll(url, "'", `'\''`) + "'"
	return fmt.Sprintf("# Imported from PowerJob, which downloaded the script at every run.\ncurl -fsSL %s -o %s && exec %s %s\n", q, file, cmd, file)
}

// isURL says whether PowerJob would download s (AbstractScriptProcessor:
// http, https and ftp).
func isURL(s string) bool {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, " \n\t") {
		return false
	}
	for _, p := range []string{"http://", "https://", "ftp://"} {
		if strings.HasPrefix(strings.ToLower(s), p) {
			return true
		}
	}
	return false
}

// scriptSummary says in a few words what a script processor is.
func scriptSummary(processorType, processor string) string {
	n := strings.Count(strings.TrimRight(processor, "\n"), "\n") + 1
	if n == 1 {
		return processorType + " script (1 line)"
	}
	return fmt.Sprintf("%s script (%d lines)", processorType, n)
}
