package apply

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/jobwheel/jobwheel/db"
)

// specDifferences names the fields (WorkflowInput's) in which two
// workflow definitions differ, compared as they are stored, in JSON (an
// empty list and none are the same).
func specDifferences(a, b db.WorkflowSpec) []string {
	var out []string
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	t := va.Type()
	for i := range t.NumField() {
		name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		if name == "graph" {
			if !sameJSON(a.Graph.Nodes, b.Graph.Nodes) {
				out = append(out, "nodes")
			}
			if !sameJSON(a.Graph.Edges, b.Graph.Edges) {
				out = append(out, "edges")
			}
			continue
		}
		if !sameJSON(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, name)
		}
	}
	return out
}

// sameJSON says whether a and b encode alike; a nil slice and an empty
// one do.
func sameJSON(a, b any) bool {
	ja, erra := json.Marshal(a)
	jb, errb := json.Marshal(b)
	if erra != nil || errb != nil {
		return false
	}
	empty := func(j []byte) bool { return bytes.Equal(j, []byte("null")) || bytes.Equal(j, []byte("[]")) }
	return bytes.Equal(ja, jb) || (empty(ja) && empty(jb))
}
