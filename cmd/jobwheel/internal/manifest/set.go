package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SetName decides which managed set documents read from paths belong to:
// flag (--set) when given; else their SetLabel, which every document that
// has one must agree on; else the name of the directory the files are in.
// A document labelled with another set than flag names is an error, as
// are paths in directories of different names with no label or flag.
func SetName(flag string, docs []*Document, paths []string) (string, error) {
	labels := map[string]*Document{}
	var names []string
	for _, d := range docs {
		if l := d.Metadata.Labels[SetLabel]; l != "" {
			if labels[l] == nil {
				labels[l] = d
				names = append(names, l)
			}
		}
	}
	if flag != "" {
		for l, d := range labels {
			if l != flag {
				return "", fmt.Errorf("%s: document %d (%s) is labelled %s: %s, but --set is %q; change the label or the flag",
					d.Source.File, d.Source.Index, d.Object(), SetLabel, l, flag)
			}
		}
		return flag, nil
	}
	switch len(names) {
	case 1:
		return names[0], nil
	case 0:
	default:
		slices.Sort(names)
		return "", fmt.Errorf("the documents are labelled with different sets (%s); apply each set on its own, or give --set", strings.Join(names, ", "))
	}
	var dirs []string
	for _, p := range paths {
		if p == "-" {
			return "", fmt.Errorf("documents read from standard input name no directory: give --set, or label them %s: NAME", SetLabel)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		if st, err := os.Stat(abs); err == nil && !st.IsDir() {
			abs = filepath.Dir(abs)
		}
		if name := filepath.Base(abs); !slices.Contains(dirs, name) {
			dirs = append(dirs, name)
		}
	}
	switch {
	case len(dirs) == 1 && dirs[0] != "/" && dirs[0] != ".":
		return dirs[0], nil
	case len(dirs) == 0:
		return "", fmt.Errorf("no files given")
	}
	return "", fmt.Errorf("the files are in directories of different names (%s): give --set, or label them %s: NAME", strings.Join(dirs, ", "), SetLabel)
}
