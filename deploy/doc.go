// Package deploy holds foiaflow's deployment files and the offline checks
// that keep them correct (deploy_test.go, compose_test.go): the Kubernetes
// manifests in k8s/ are strictly decoded into the typed k8s.io/api objects
// (unknown or misspelt fields fail) and checked for probes, PDBs, security
// context and shutdown timing; docker-compose.yml at the repository root is
// loaded and schema-validated with compose-go, the library behind
// `docker compose config`. It is a module of its own so that these
// dependencies never reach the foiaflow binaries or the root `go test ./...`;
// `make lint` runs it.
package deploy
