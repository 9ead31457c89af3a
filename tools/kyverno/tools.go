//go:build tools

// Package tools pins the Kyverno CLI that scripts/test-gatekeeper-kyverno.sh builds (kyverno v1.19.1's own
// go.mod, plus its one replace directive, which `go install pkg@version` refuses).
package tools

import _ "github.com/kyverno/kyverno/cmd/cli/kubectl-kyverno"
