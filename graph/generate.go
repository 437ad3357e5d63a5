package graph

// gqlgen resolves the paths in gqlgen.yml against the working directory, so
// it runs from the repository root.
//go:generate sh -c "cd .. && go tool gqlgen generate"
