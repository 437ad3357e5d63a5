// Module deploy pins the tools `make test-deploy` builds from the Go module
// proxy — helm and kubeconform — and holds k8sschema, which derives the
// Kubernetes JSON schemas in deploy/schemas from k8s.io/api. It is a module
// of its own so that their many dependencies neither enter jobwheel's
// go.mod nor move golangci-lint's (tools/go.mod).
package deploy
