package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/jobwheel/jobwheel/e2e/harness"
)

// docBlock is one fenced code block of a Markdown file.
type docBlock struct {
	file string
	line int // of the opening fence
	lang string
	text string
}

var fence = regexp.MustCompile("^```([a-z]*)\\s*$")

// docBlocks returns the fenced code blocks of the README, CONTRIBUTING and
// every Markdown page under docs/ and worker/.
func docBlocks(t *testing.T, root string) []docBlock {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md"}
	for _, dir := range []string{"docs", "worker"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "target") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(path, ".md") {
				rel, _ := filepath.Rel(root, path)
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var out []docBlock
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		var cur *docBlock
		for i, l := range strings.Split(string(b), "\n") {
			m := fence.FindStringSubmatch(l)
			switch {
			case cur == nil && m != nil:
				cur = &docBlock{file: f, line: i + 1, lang: m[1]}
			case cur != nil && l == "```":
				out = append(out, *cur)
				cur = nil
			case cur != nil:
				cur.text += l + "\n"
			}
		}
		if cur != nil {
			t.Errorf("%s:%d: a code block is never closed", f, cur.line)
		}
	}
	return out
}

// TestDocsCodeBlocks: every code block a reader may copy from the README
// and the docs is checked, so none of them rots: Go programs are built
// against this tree, GraphQL documents validated against the schema, shell
// and Python parsed, JSON decoded ("…" outside a string stands for what
// the example leaves out). Blocks without a language are prose (output,
// diagrams) and are not checked.
func TestDocsCodeBlocks(t *testing.T) {
	t.Parallel()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	schema := loadSchema(t, root)
	checked := map[string]int{}
	for _, b := range docBlocks(t, root) {
		where := fmt.Sprintf("%s:%d", b.file, b.line)
		var err error
		switch b.lang {
		case "go":
			err = buildGo(t, root, b)
		case "graphql":
			err = validateGraphQL(schema, b.text)
		case "sh", "bash":
			err = run(exec.Command("bash", "-n"), b.text)
		case "python":
			err = run(exec.Command("python3", "-c", "import ast, sys; ast.parse(sys.stdin.read())"), b.text)
		case "json":
			err = decodeJSON(b.text)
		case "", "text", "ini", "yaml", "java", "xml", "properties", "toml":
			continue // prose and formats checked elsewhere (yaml by the CLI's tests)
		default:
			t.Errorf("%s: a ```%s block: the docs check knows no such language", where, b.lang)
			continue
		}
		if err != nil {
			t.Errorf("%s: this ```%s block is wrong: %v\n%s", where, b.lang, err, b.text)
		}
		checked[b.lang]++
	}
	t.Logf("checked %v", checked)
}

func loadSchema(t *testing.T, root string) *ast.Schema {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "graph", "schema", "*.graphqls"))
	if err != nil {
		t.Fatal(err)
	}
	var sources []*ast.Source
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, &ast.Source{Name: p, Input: string(b)})
	}
	s, gerr := gqlparser.LoadSchema(sources...)
	if gerr != nil {
		t.Fatalf("loading the schema: %v", gerr)
	}
	return s
}

func validateGraphQL(schema *ast.Schema, text string) error {
	if _, errs := gqlparser.LoadQueryWithRules(schema, text, nil); len(errs) > 0 {
		return errs
	}
	return nil
}

// buildGo builds a Go block, which must be a whole file (package clause
// and imports: what a reader copies must compile as it is).
func buildGo(t *testing.T, root string, b docBlock) error {
	if !strings.HasPrefix(strings.TrimSpace(b.text), "package ") {
		return errors.New("a Go block must be a whole file, starting with its package clause")
	}
	dir := filepath.Join(root, "e2e", "output", "_doccheck", strings.NewReplacer("/", "_", ".", "_").Replace(b.file)+fmt.Sprint("_", b.line))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(b.text), 0o644); err != nil {
		return err
	}
	cmd := exec.Command("go", "vet", "./"+mustRel(root, dir))
	cmd.Dir = root
	return run(cmd, "")
}

func mustRel(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		panic(err)
	}
	return rel
}

func run(cmd *exec.Cmd, stdin string) error {
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// decodeJSON decodes one or more JSON values, with "…" outside strings
// taken as an elision.
func decodeJSON(text string) error {
	var sb strings.Builder
	inString, escaped := false, false
	for _, r := range text {
		switch {
		case escaped:
			escaped = false
		case inString && r == '\\':
			escaped = true
		case r == '"':
			inString = !inString
		case !inString && r == '…':
			continue
		}
		sb.WriteRune(r)
	}
	dec := json.NewDecoder(strings.NewReader(sb.String()))
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
