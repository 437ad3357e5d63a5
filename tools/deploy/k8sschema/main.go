// Command k8sschema writes the JSON schemas kubeconform validates jobwheel's
// Kubernetes manifests and rendered Helm chart against (deploy/schemas),
// so that `make test` needs no network.
//
// The schemas are derived from the Go types of k8s.io/api, at the version
// this module pins, by reflection: each struct becomes an object whose
// properties are its JSON fields and which allows no others (a misspelt
// field fails, as kubeconform's "-strict" schemas do), slices become
// arrays, maps objects, and the types that marshal themselves get what
// they marshal to (resource.Quantity and intstr.IntOrString a string or a
// number, metav1.Time a string). A field without omitempty is required, as
// Kubernetes' own markers mostly say (a container's name, a Deployment's
// selector and template, a port's number). Every value may also be null,
// as an empty YAML key is. They are not the upstream OpenAPI-derived
// schemas, which cannot be fetched here; they check the same things for
// the objects we write.
//
//	go run ./k8sschema -out ../../deploy/schemas   (from tools/deploy; `make deploy-schemas`)
package main

import (
	"encoding"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// kinds are the objects jobwheel's manifests and chart may contain. The
// file names follow kubeconform's {{.ResourceKind}}{{.KindSuffix}}.json.
var kinds = []struct {
	apiVersion, kind string
	obj              any
}{
	{"apps/v1", "Deployment", appsv1.Deployment{}},
	{"apps/v1", "StatefulSet", appsv1.StatefulSet{}},
	{"v1", "Service", corev1.Service{}},
	{"v1", "Secret", corev1.Secret{}},
	{"v1", "ConfigMap", corev1.ConfigMap{}},
	{"v1", "ServiceAccount", corev1.ServiceAccount{}},
	{"policy/v1", "PodDisruptionBudget", policyv1.PodDisruptionBudget{}},
}

func main() {
	out := flag.String("out", "deploy/schemas", "directory to write the schemas to")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	for _, k := range kinds {
		g := &gen{defs: map[string]any{}}
		root := g.object(reflect.TypeOf(k.obj))
		props := root["properties"].(map[string]any)
		props["apiVersion"] = map[string]any{"type": "string", "enum": []string{k.apiVersion}}
		props["kind"] = map[string]any{"type": "string", "enum": []string{k.kind}}
		root["required"] = []string{"apiVersion", "kind"}
		root["$schema"] = "http://json-schema.org/draft-07/schema#"
		root["description"] = fmt.Sprintf("%s %s, derived from the Go types of k8s.io/api by tools/deploy/k8sschema", k.apiVersion, k.kind)
		root["definitions"] = g.defs
		b, err := json.MarshalIndent(root, "", " ")
		if err != nil {
			log.Fatal(err)
		}
		name := strings.ToLower(k.kind) + suffix(k.apiVersion) + ".json"
		if err := os.WriteFile(filepath.Join(*out, name), append(b, '\n'), 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Println(filepath.Join(*out, name))
	}
}

// suffix is kubeconform's KindSuffix: "-v1" for the core group, else
// "-<group's first label>-<version>" ("-apps-v1", "-policy-v1").
func suffix(apiVersion string) string {
	group, version, found := strings.Cut(apiVersion, "/")
	if !found {
		return "-" + apiVersion
	}
	return "-" + strings.Split(group, ".")[0] + "-" + version
}

type gen struct {
	defs map[string]any
}

var (
	quantityType = reflect.TypeOf(resource.Quantity{})
	intOrString  = reflect.TypeOf(intstr.IntOrString{})
	timeType     = reflect.TypeOf(metav1.Time{})
	microTime    = reflect.TypeOf(metav1.MicroTime{})
	durationType = reflect.TypeOf(metav1.Duration{})
	rawExtension = reflect.TypeOf(runtime.RawExtension{})
	marshaler    = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	textMarsh    = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
)

func nullable(types ...string) map[string]any {
	return map[string]any{"type": append(types, "null")}
}

// schema is t's schema, a reference for named structs.
func (g *gen) schema(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case quantityType:
		return nullable("string", "number")
	case intOrString:
		return nullable("string", "integer")
	case timeType, microTime, durationType:
		return nullable("string")
	case rawExtension:
		return map[string]any{}
	}
	if t.Kind() == reflect.Struct && (t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) ||
		t.Implements(textMarsh) || reflect.PointerTo(t).Implements(textMarsh)) {
		return map[string]any{} // marshals itself: anything
	}
	switch t.Kind() {
	case reflect.String:
		return nullable("string")
	case reflect.Bool:
		return nullable("boolean")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return nullable("integer")
	case reflect.Float32, reflect.Float64:
		return nullable("number")
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nullable("string") // []byte: base64
		}
		return map[string]any{"type": []string{"array", "null"}, "items": g.schema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": []string{"object", "null"}, "additionalProperties": g.schema(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		name := strings.NewReplacer("k8s.io/", "io.k8s.", "/", ".").Replace(t.PkgPath()) + "." + t.Name()
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // being built: a recursive reference finds it
			g.defs[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/definitions/" + name}
	}
	log.Fatalf("k8sschema: no schema for %s", t)
	return nil
}

// object is a struct's schema: its JSON fields, inlined ones included, and
// no others.
func (g *gen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	g.fields(t, props, &required)
	sort.Strings(required)
	s := map[string]any{"type": []string{"object", "null"}, "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func (g *gen) fields(t reflect.Type, props map[string]any, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		inline := strings.Contains(","+opts+",", ",inline,") || (f.Anonymous && name == "")
		if inline {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			g.fields(ft, props, required)
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = g.schema(f.Type)
		if !strings.Contains(","+opts+",", ",omitempty,") && !strings.Contains(","+opts+",", ",omitzero,") {
			*required = append(*required, name)
		}
	}
}
