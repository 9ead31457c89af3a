// Package vap checks policies/vap/policy.yaml with the real ValidatingAdmissionPolicy code of
// kube-apiserver v1.35 (k8s.io/apiserver/pkg/admission/plugin/policy/validating): the policy is
// type-checked against the real OpenAPI schemas of apps/v1 Deployments and StatefulSets (the
// warnings kube-apiserver writes into status.typeChecking), compiled as the admission plugin
// compiles it, and evaluated on every fixture of policies/fixtures; the rule IDs it denies must
// equal policies/fixtures/expected.yaml.
package vap

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"
	sigsyaml "sigs.k8s.io/yaml"

	// Registers apps/v1 in legacyscheme, as kube-apiserver does.
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
)

var policiesDir = filepath.Join("..", "..", "..", "policies")

// loadPolicy reads the ValidatingAdmissionPolicy (the first document) of policies/vap/policy.yaml.
func loadPolicy(t *testing.T) *admissionregistrationv1.ValidatingAdmissionPolicy {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(policiesDir, "vap", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(text), "\n---\n", 2)[0]
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	if err := sigsyaml.UnmarshalStrict([]byte(first), policy); err != nil {
		t.Fatalf("policies/vap/policy.yaml: %v", err)
	}
	return policy
}

var (
	compositionEnvOnce sync.Once
	compositionEnv     *cel.CompositionEnv
)

// compile is validating.compilePolicy (plugin.go, unexported upstream) for a policy without
// matchConditions or audit annotations: the same environment, variables and compilers.
func compile(t *testing.T, policy *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	t.Helper()
	compositionEnvOnce.Do(func() {
		env, err := cel.NewCompositionEnv(cel.VariablesTypeName, environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
		if err != nil {
			t.Fatal(err)
		}
		compositionEnv = env
	})
	if len(policy.Spec.MatchConditions) > 0 || len(policy.Spec.AuditAnnotations) > 0 {
		t.Fatal("compile does not handle matchConditions or auditAnnotations; extend it as plugin.go does")
	}
	hasParams := policy.Spec.ParamKind != nil
	optionalVars := cel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	messageVars := cel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: false}
	compiler := cel.NewCompositedCompilerFromTemplate(compositionEnv)
	variables := make([]cel.NamedExpressionAccessor, len(policy.Spec.Variables))
	for i, v := range policy.Spec.Variables {
		variables[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	compiler.CompileAndStoreVariables(variables, optionalVars, environment.StoredExpressions)
	validations := make([]cel.ExpressionAccessor, len(policy.Spec.Validations))
	messages := make([]cel.ExpressionAccessor, len(policy.Spec.Validations))
	for i, v := range policy.Spec.Validations {
		validations[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		if v.MessageExpression != "" {
			messages[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	return validating.NewValidator(
		compiler.CompileCondition(validations, optionalVars, environment.StoredExpressions),
		nil,
		compiler.CompileCondition(nil, optionalVars, environment.StoredExpressions),
		compiler.CompileCondition(messages, messageVars, environment.StoredExpressions),
		policy.Spec.FailurePolicy,
	)
}

// TestPolicyTypeChecks runs kube-apiserver's type checker over the policy with the real schemas
// of the kinds it matches: no warnings (a misspelt field or a type error would be one).
func TestPolicyTypeChecks(t *testing.T) {
	policy := loadPolicy(t)
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: "apps", Version: "v1"}})
	for _, kind := range []string{"Deployment", "StatefulSet"} {
		mapper.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: kind}, meta.RESTScopeNamespace)
	}
	checker := validating.TypeChecker{
		SchemaResolver: resolver.NewDefinitionsSchemaResolver(generatedopenapi.GetOpenAPIDefinitions, legacyscheme.Scheme),
		RestMapper:     mapper,
	}
	for _, warning := range checker.Check(policy) {
		t.Errorf("%s: %s", warning.FieldRef, warning.Warning)
	}
	// The check can fail: a misspelt field of `object` is reported.
	broken := policy.DeepCopy()
	broken.Spec.Validations[0].Expression = "object.spec.template.spec.topologySpreadConstraintz.size() > 0"
	if warnings := checker.Check(broken); len(warnings) == 0 {
		t.Error("the type checker accepted a misspelt field")
	}
}

var ruleID = regexp.MustCompile(`^\[([a-z0-9-]+)\] `)

// TestFixturesDenyTheExpectedRules evaluates the compiled policy on every fixture.
func TestFixturesDenyTheExpectedRules(t *testing.T) {
	validator := compile(t, loadPolicy(t))
	expected := readExpected(t)
	if len(expected) == 0 {
		t.Fatal("no fixtures in policies/fixtures/expected.yaml")
	}
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			object := readFixture(t, name)
			gvk := object.GroupVersionKind()
			gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: strings.ToLower(gvk.Kind) + "s"}
			attributes := admission.NewAttributesRecord(object, nil, gvk, object.GetNamespace(), object.GetName(), gvr, "", admission.Create, nil, false, nil)
			versioned := &admission.VersionedAttributes{Attributes: attributes, VersionedKind: gvk, VersionedObject: object}
			result := validator.Validate(context.Background(), gvr, versioned, nil, nil, celconfig.RuntimeCELCostBudget, nil)
			var got []string
			for _, decision := range result.Decisions {
				switch decision.Action {
				case validating.ActionAdmit:
				case validating.ActionDeny:
					if decision.Evaluation == validating.EvalError {
						t.Fatalf("evaluation error: %s", decision.Message)
					}
					match := ruleID.FindStringSubmatch(decision.Message)
					if match == nil {
						t.Fatalf("message without a rule ID: %q", decision.Message)
					}
					got = append(got, match[1])
				default:
					t.Fatalf("unexpected decision %+v", decision)
				}
			}
			sort.Strings(got)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Errorf("denied %v, want %v", got, want)
			}
		})
	}
}

// readExpected reads policies/fixtures/expected.yaml: fixture name to rule IDs.
func readExpected(t *testing.T) map[string][]string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(policiesDir, "fixtures", "expected.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	expected := map[string][]string{}
	if err := sigsyaml.UnmarshalStrict(text, &expected); err != nil {
		t.Fatalf("expected.yaml: %v", err)
	}
	return expected
}

func readFixture(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	file, err := os.Open(filepath.Join(policiesDir, "fixtures", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	object := &unstructured.Unstructured{}
	if err := yaml.NewYAMLOrJSONDecoder(file, 4096).Decode(&object.Object); err != nil {
		t.Fatalf("%s.yaml: %v", name, err)
	}
	return object
}
