//! The admission request as the policy reads it: which kind, which operation, which namespace,
//! the object and (on UPDATE) the old object. Errors name the field that is missing or wrong.

use core::fmt;

use serde_json::Value;

/// The kinds the policy checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `apps/v1` Deployment.
    Deployment,
    /// `apps/v1` StatefulSet.
    StatefulSet,
    /// `apps/v1` ReplicaSet.
    ReplicaSet,
    /// `v1` Pod.
    Pod,
}

impl Kind {
    /// The kind as written in manifests.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Deployment => "Deployment",
            Kind::StatefulSet => "StatefulSet",
            Kind::ReplicaSet => "ReplicaSet",
            Kind::Pod => "Pod",
        }
    }

    /// `apiVersion` of the kind.
    pub fn api_version(self) -> &'static str {
        match self {
            Kind::Pod => "v1",
            _ => "apps/v1",
        }
    }

    fn parse(group: &str, kind: &str) -> Option<Kind> {
        match (group, kind) {
            ("apps", "Deployment") => Some(Kind::Deployment),
            ("apps", "StatefulSet") => Some(Kind::StatefulSet),
            ("apps", "ReplicaSet") => Some(Kind::ReplicaSet),
            ("", "Pod") => Some(Kind::Pod),
            _ => None,
        }
    }
}

/// The admission operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// CREATE.
    Create,
    /// UPDATE.
    Update,
    /// DELETE or CONNECT: nothing to place.
    Other,
}

/// A request the policy could not read, with the field at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestError {
    /// Dotted path of the field in the `validate` payload (e.g. `request.object.spec`).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl RequestError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> RequestError {
        RequestError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// The fields of an `AdmissionRequest` the policy uses.
#[derive(Clone, Debug, PartialEq)]
pub struct Admission {
    /// The object's kind, or `None` for a kind the policy does not check.
    pub kind: Option<Kind>,
    /// `request.kind.kind` as sent.
    pub kind_name: String,
    /// The operation.
    pub operation: Operation,
    /// `request.namespace` (else `object.metadata.namespace`, else `default`).
    pub namespace: String,
    /// `object.metadata.name` (a `generateName` prefix completed with `spreadlab-admitted`).
    pub name: String,
    /// `request.object`, with `apiVersion`, `kind`, namespace and name filled in.
    pub object: Value,
    /// `request.oldObject` on UPDATE.
    pub old_object: Option<Value>,
}

fn str_at<'v>(value: &'v Value, path: &[&str]) -> Option<&'v str> {
    path.iter()
        .try_fold(value, |value, key| value.get(key))
        .and_then(Value::as_str)
}

/// Reads `request` (the `request` member of the `validate` payload).
pub fn parse(request: &Value) -> Result<Admission, RequestError> {
    if !request.is_object() {
        return Err(RequestError::new(
            "request",
            "must be an AdmissionRequest object",
        ));
    }
    let kind_name = str_at(request, &["kind", "kind"])
        .ok_or_else(|| RequestError::new("request.kind.kind", "missing or not a string"))?;
    let group = match request.get("kind").and_then(|k| k.get("group")) {
        None | Some(Value::Null) => "",
        Some(Value::String(group)) => group.as_str(),
        Some(_) => return Err(RequestError::new("request.kind.group", "not a string")),
    };
    let kind = Kind::parse(group, kind_name);
    let operation = match str_at(request, &["operation"]) {
        Some("CREATE") => Operation::Create,
        Some("UPDATE") => Operation::Update,
        Some("DELETE" | "CONNECT") => Operation::Other,
        Some(other) => {
            return Err(RequestError::new(
                "request.operation",
                format!("unknown operation {other:?}"),
            ));
        }
        None => {
            return Err(RequestError::new(
                "request.operation",
                "missing or not a string",
            ));
        }
    };
    let mut object = match request.get("object") {
        Some(object @ Value::Object(_)) => object.clone(),
        Some(Value::Null) | None if operation == Operation::Other => Value::Null,
        Some(Value::Null) | None => {
            return Err(RequestError::new("request.object", "missing"));
        }
        Some(_) => return Err(RequestError::new("request.object", "not an object")),
    };
    let old_object = match request.get("oldObject") {
        Some(old @ Value::Object(_)) => Some(old.clone()),
        Some(Value::Null) | None => None,
        Some(_) => return Err(RequestError::new("request.oldObject", "not an object")),
    };
    if operation == Operation::Update && old_object.is_none() && kind.is_some() {
        return Err(RequestError::new(
            "request.oldObject",
            "missing on an UPDATE",
        ));
    }
    if !matches!(
        object.get("metadata"),
        None | Some(Value::Null) | Some(Value::Object(_))
    ) {
        return Err(RequestError::new(
            "request.object.metadata",
            "not an object",
        ));
    }
    let namespace = str_at(request, &["namespace"])
        .filter(|ns| !ns.is_empty())
        .or_else(|| str_at(&object, &["metadata", "namespace"]).filter(|ns| !ns.is_empty()))
        .unwrap_or("default")
        .to_owned();
    let name = match str_at(&object, &["metadata", "name"]).filter(|n| !n.is_empty()) {
        Some(name) => name.to_owned(),
        None => match str_at(&object, &["metadata", "generateName"]) {
            Some(prefix) if !prefix.is_empty() => format!("{prefix}spreadlab-admitted"),
            _ if operation == Operation::Other || kind.is_none() => String::new(),
            _ => {
                return Err(RequestError::new(
                    "request.object.metadata.name",
                    "missing (and no generateName)",
                ));
            }
        },
    };
    if let (Some(kind), Value::Object(map)) = (kind, &mut object) {
        map.insert("apiVersion".into(), Value::from(kind.api_version()));
        map.insert("kind".into(), Value::from(kind.as_str()));
        let metadata = map
            .entry("metadata")
            .or_insert_with(|| Value::Object(Default::default()));
        if metadata.is_null() {
            *metadata = Value::Object(Default::default());
        }
        if let Value::Object(metadata) = metadata {
            metadata.insert("namespace".into(), Value::from(namespace.clone()));
            metadata.insert("name".into(), Value::from(name.clone()));
        }
    }
    Ok(Admission {
        kind,
        kind_name: kind_name.to_owned(),
        operation,
        namespace,
        name,
        object,
        old_object,
    })
}

impl Admission {
    /// `metadata.labels` of the object (non-string values ignored).
    pub fn labels(&self) -> spreadlab_engine::model::Labels {
        self.object
            .get("metadata")
            .and_then(|m| m.get("labels"))
            .and_then(Value::as_object)
            .map(|labels| {
                labels
                    .iter()
                    .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The object's controller (`ownerReferences[]` with `controller: true`): its `apiVersion`
    /// and `kind`.
    pub fn controller(&self) -> Option<(&str, &str)> {
        let owners = self
            .object
            .get("metadata")?
            .get("ownerReferences")?
            .as_array()?;
        let owner = owners
            .iter()
            .find(|o| o.get("controller").and_then(Value::as_bool) == Some(true))?;
        Some((
            owner
                .get("apiVersion")
                .and_then(Value::as_str)
                .unwrap_or(""),
            owner.get("kind").and_then(Value::as_str).unwrap_or(""),
        ))
    }

    /// Whether a built-in controller made this object from one the policy checks (or places by
    /// node): a Deployment's ReplicaSet, or a Pod of a ReplicaSet, StatefulSet, Job,
    /// ReplicationController or DaemonSet. Those are left out of scope by default: their owner
    /// was checked, and rejecting its children only stalls it. A workload with any other
    /// controller (an operator's custom resource, a ConfigMap, a CronJob's Job) is the object
    /// that decides placement, so it is checked.
    pub fn made_by_checked_controller(&self) -> bool {
        let Some((api_version, owner)) = self.controller() else {
            return false;
        };
        match self.kind {
            Some(Kind::ReplicaSet) => api_version == "apps/v1" && owner == "Deployment",
            Some(Kind::Pod) => match owner {
                "ReplicaSet" | "StatefulSet" | "DaemonSet" => api_version == "apps/v1",
                "Job" => api_version == "batch/v1",
                "ReplicationController" => api_version == "v1",
                _ => false,
            },
            _ => false,
        }
    }

    /// The pod template (`spec.template`; the object itself for a Pod).
    pub fn template(&self) -> Option<&Value> {
        match self.kind? {
            Kind::Pod => Some(&self.object),
            _ => self.object.get("spec").and_then(|s| s.get("template")),
        }
    }

    /// On UPDATE: whether the pod template changed (a rollout), as opposed to a scale or a
    /// metadata change. A Pod counts as changed.
    pub fn template_changed(&self) -> bool {
        self.template_changed_in(&self.object)
    }

    /// As [`Admission::template_changed`], for `object` standing in for the request's object:
    /// the mutating variant compares the object it admits (mutated) with the old one, so an
    /// UPDATE the mutation turns into a template change is a rollout, and re-applying a manifest
    /// the mutation had completed before is not.
    pub fn template_changed_in(&self, object: &Value) -> bool {
        let Some(old) = &self.old_object else {
            return false;
        };
        match self.kind {
            Some(Kind::Pod) | None => true,
            Some(_) => {
                old.get("spec").and_then(|s| s.get("template"))
                    != object.get("spec").and_then(|s| s.get("template"))
            }
        }
    }

    /// `Kind namespace/name` for messages.
    pub fn describe(&self) -> String {
        format!("{} {}/{}", self.kind_name, self.namespace, self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment_request(operation: &str) -> Value {
        json!({
            "uid": "1",
            "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
            "operation": operation,
            "namespace": "ml",
            "object": {"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"template": {"spec": {}}}},
            "oldObject": {"metadata": {"name": "web"}, "spec": {"template": {"spec": {"x": 1}}}}
        })
    }

    #[test]
    fn reads_a_deployment_update() {
        let admission = parse(&deployment_request("UPDATE")).unwrap();
        assert_eq!(admission.kind, Some(Kind::Deployment));
        assert_eq!(admission.operation, Operation::Update);
        assert_eq!(admission.namespace, "ml");
        assert_eq!(admission.object["metadata"]["namespace"], "ml");
        assert_eq!(admission.object["kind"], "Deployment");
        assert!(admission.template_changed());
        assert_eq!(admission.labels()["app"], "web");
        assert!(admission.controller().is_none());
        assert!(!admission.made_by_checked_controller());
    }

    /// Scope by what the controller is: a Deployment's ReplicaSet and a ReplicaSet's Pod are
    /// children of checked objects; a Deployment an operator (or anything else) controls, and a
    /// Pod whose controller is a custom resource, are the objects that decide placement.
    #[test]
    fn children_of_checked_controllers_are_told_apart_from_operator_workloads() {
        let with_owner = |kind: &str, group: &str, api_version: &str, owner: &str| {
            let mut request = deployment_request("CREATE");
            request["kind"] = json!({"group": group, "version": "v1", "kind": kind});
            request["object"]["kind"] = json!(kind);
            request["object"]["metadata"]["ownerReferences"] = json!([
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "not-the-controller", "uid": "0"},
                {"apiVersion": api_version, "kind": owner, "name": "o", "uid": "1", "controller": true}
            ]);
            parse(&request).unwrap()
        };
        for (kind, group, api_version, owner, child) in [
            ("ReplicaSet", "apps", "apps/v1", "Deployment", true),
            ("Pod", "", "apps/v1", "ReplicaSet", true),
            ("Pod", "", "apps/v1", "StatefulSet", true),
            ("Pod", "", "batch/v1", "Job", true),
            ("Pod", "", "apps/v1", "DaemonSet", true),
            ("Deployment", "apps", "v1", "ConfigMap", false),
            (
                "Deployment",
                "apps",
                "example.com/v1",
                "InferenceService",
                false,
            ),
            ("StatefulSet", "apps", "ray.io/v1", "RayCluster", false),
            ("Pod", "", "example.com/v1", "Notebook", false),
            ("ReplicaSet", "apps", "example.com/v1", "Rollout", false),
        ] {
            let admission = with_owner(kind, group, api_version, owner);
            assert_eq!(
                admission.made_by_checked_controller(),
                child,
                "{kind} controlled by {api_version} {owner}"
            );
        }
    }

    #[test]
    fn generate_name_is_completed() {
        let request = json!({
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "operation": "CREATE",
            "object": {"metadata": {"generateName": "job-"}, "spec": {"containers": []}}
        });
        let admission = parse(&request).unwrap();
        assert_eq!(admission.name, "job-spreadlab-admitted");
        assert_eq!(admission.namespace, "default");
    }

    #[test]
    fn malformed_requests_name_the_field() {
        let cases = [
            (json!("text"), "request"),
            (json!({}), "request.kind.kind"),
            (
                json!({"kind": {"group": 1, "kind": "Pod"}, "operation": "CREATE"}),
                "request.kind.group",
            ),
            (
                json!({"kind": {"group": "", "kind": "Pod"}}),
                "request.operation",
            ),
            (
                json!({"kind": {"group": "", "kind": "Pod"}, "operation": "PATCH"}),
                "request.operation",
            ),
            (
                json!({"kind": {"group": "", "kind": "Pod"}, "operation": "CREATE"}),
                "request.object",
            ),
            (
                json!({"kind": {"group": "", "kind": "Pod"}, "operation": "CREATE", "object": [1]}),
                "request.object",
            ),
            (
                json!({"kind": {"group": "", "kind": "Pod"}, "operation": "CREATE", "object": {"spec": {}}}),
                "request.object.metadata.name",
            ),
            (
                json!({"kind": {"group": "apps", "kind": "Deployment"}, "operation": "UPDATE", "object": {"metadata": {"name": "a"}}}),
                "request.oldObject",
            ),
            (
                json!({"kind": {"group": "", "kind": "Pod"}, "operation": "CREATE", "object": {"metadata": 3}}),
                "request.object.metadata",
            ),
        ];
        for (request, field) in cases {
            let error = parse(&request).unwrap_err();
            assert_eq!(error.field, field, "{request}: {error}");
        }
    }

    #[test]
    fn other_kinds_and_operations_parse() {
        let admission = parse(&json!({
            "kind": {"group": "batch", "version": "v1", "kind": "Job"},
            "operation": "CREATE",
            "object": {"metadata": {"name": "j"}}
        }))
        .unwrap();
        assert_eq!(admission.kind, None);
        let delete = parse(&json!({
            "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
            "operation": "DELETE",
            "oldObject": {"metadata": {"name": "web"}}
        }))
        .unwrap();
        assert_eq!(delete.operation, Operation::Other);
    }
}
