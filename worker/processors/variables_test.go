package processors

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestScriptVariablesDocumented (issue 16, item 12): every variable a
// script is given (script.go) is in docs/jobs.md's "What a script sees" and
// in the job form's help (frontend/src/jobs/ScriptVariables.tsx), and
// neither names one a script does not get.
func TestScriptVariablesDocumented(t *testing.T) {
	read := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	names := func(re *regexp.Regexp, text string) []string {
		var out []string
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
		slices.Sort(out)
		return out
	}
	given := names(regexp.MustCompile(`"((?:JOBWHEEL_[A-Z_]+)|PYTHONUNBUFFERED|TRACEPARENT)=`), read("script.go"))

	readme := read("../../docs/jobs.md")
	_, section, ok := strings.Cut(readme, "\n## What a script sees\n")
	if !ok {
		t.Fatal(`docs/jobs.md has no "## What a script sees"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var firstCells strings.Builder
	for _, line := range strings.Split(section, "\n") {
		if cells := strings.Split(line, "|"); strings.HasPrefix(line, "| `") && len(cells) > 1 {
			firstCells.WriteString(cells[1])
		}
	}
	documented := names(regexp.MustCompile("`([A-Z_]+)`"), firstCells.String())

	form := read("../../frontend/src/jobs/ScriptVariables.tsx")
	var formNames strings.Builder
	for _, m := range regexp.MustCompile(`\[\s*"([A-Z_, ]+)",`).FindAllStringSubmatch(form, -1) {
		formNames.WriteString(" " + strings.ReplaceAll(m[1], ",", " "))
	}
	inForm := names(regexp.MustCompile(`\b([A-Z][A-Z_]+)\b`), formNames.String())

	if len(given) < 10 {
		t.Fatalf("found only %q in script.go", given)
	}
	if !slices.Equal(documented, given) {
		t.Errorf("docs/jobs.md's What a script sees lists\n\t%q\nscripts get\n\t%q", documented, given)
	}
	if !slices.Equal(inForm, given) {
		t.Errorf("the job form's help (ScriptVariables.tsx) lists\n\t%q\nscripts get\n\t%q", inForm, given)
	}
}
