//! Resource lists and the scheduler's `Resource` arithmetic (`pkg/scheduler/framework/types.go`,
//! `k8s.io/component-helpers/resource/helpers.go` at v0.35). Sums wrap as Go's `int64` does: a
//! quantity may be as large as 2^63-1, so adding two of them overflows in the real scheduler too
//! (found by fuzzing: `tests/fuzz-regressions/`).

use alloc::collections::BTreeMap;
use alloc::string::String;

/// `v1.ResourceCPU`.
pub const CPU: &str = "cpu";
/// `v1.ResourceMemory`.
pub const MEMORY: &str = "memory";
/// `v1.ResourceEphemeralStorage`.
pub const EPHEMERAL_STORAGE: &str = "ephemeral-storage";
/// `v1.ResourcePods`.
pub const PODS: &str = "pods";

/// `DefaultMilliCPURequest`: what a container without a cpu request counts for scoring.
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// `DefaultMemoryRequest`: what a container without a memory request counts for scoring (200Mi).
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

/// A resource list after parsing: name to amount, cpu in millicores, everything else in whole units.
pub type ResourceList = BTreeMap<String, i64>;

/// `IsScalarResourceName`: extended resources, hugepages, attachable volumes and prefixed native
/// resources. Other names without a `/` (typos such as `gpu`) are ignored by the scheduler.
pub fn is_scalar_resource_name(name: &str) -> bool {
    is_extended_resource_name(name)
        || name.starts_with("hugepages-")
        || name.starts_with("attachable-volumes-")
        || is_prefixed_native_resource(name)
}

/// `IsPrefixedNativeResource`: a name in the `kubernetes.io/` domain.
pub fn is_prefixed_native_resource(name: &str) -> bool {
    name.contains("kubernetes.io/")
}

/// `IsExtendedResourceName`: not native, contains a `/`, and `requests.<name>` is a valid
/// qualified name (approximated by: a non-empty domain and name).
pub fn is_extended_resource_name(name: &str) -> bool {
    if is_native_resource(name) || name.starts_with("requests.") {
        return false;
    }
    match name.split_once('/') {
        Some((domain, rest)) => !domain.is_empty() && !rest.is_empty() && !rest.contains('/'),
        None => false,
    }
}

/// `IsNativeResource`: no domain, or a `kubernetes.io/` one.
pub fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || is_prefixed_native_resource(name)
}

/// The scheduler's `framework.Resource`: what a pod requests or a node holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Resource {
    /// Millicores.
    pub milli_cpu: i64,
    /// Bytes.
    pub memory: i64,
    /// Bytes.
    pub ephemeral_storage: i64,
    /// Number of pods (only meaningful for a node's allocatable).
    pub allowed_pod_number: i64,
    /// Scalar resources (extended, hugepages, ...), whole units.
    pub scalar: BTreeMap<String, i64>,
}

impl Resource {
    /// Builds from a parsed resource list, keeping cpu, memory, ephemeral storage, pods and scalar
    /// resources and dropping any other name (`NewResource`/`Add`).
    pub fn from_list(list: &ResourceList) -> Resource {
        let mut resource = Resource::default();
        resource.add_list(list);
        resource
    }

    /// Adds a parsed resource list (`Resource.Add`).
    pub fn add_list(&mut self, list: &ResourceList) {
        for (name, amount) in list {
            match name.as_str() {
                CPU => self.milli_cpu = self.milli_cpu.wrapping_add(*amount),
                MEMORY => self.memory = self.memory.wrapping_add(*amount),
                EPHEMERAL_STORAGE => {
                    self.ephemeral_storage = self.ephemeral_storage.wrapping_add(*amount)
                }
                PODS => self.allowed_pod_number = self.allowed_pod_number.wrapping_add(*amount),
                _ if is_scalar_resource_name(name) => {
                    let entry = self.scalar.entry(name.clone()).or_insert(0);
                    *entry = entry.wrapping_add(*amount);
                }
                _ => {}
            }
        }
    }

    /// Adds another resource.
    pub fn add(&mut self, other: &Resource) {
        self.milli_cpu = self.milli_cpu.wrapping_add(other.milli_cpu);
        self.memory = self.memory.wrapping_add(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.wrapping_add(other.ephemeral_storage);
        self.allowed_pod_number = self
            .allowed_pod_number
            .wrapping_add(other.allowed_pod_number);
        for (name, amount) in &other.scalar {
            let entry = self.scalar.entry(name.clone()).or_insert(0);
            *entry = entry.wrapping_add(*amount);
        }
    }

    /// Subtracts another resource (used when a pod leaves a node).
    pub fn sub(&mut self, other: &Resource) {
        self.milli_cpu = self.milli_cpu.wrapping_sub(other.milli_cpu);
        self.memory = self.memory.wrapping_sub(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.wrapping_sub(other.ephemeral_storage);
        self.allowed_pod_number = self
            .allowed_pod_number
            .wrapping_sub(other.allowed_pod_number);
        for (name, amount) in &other.scalar {
            let entry = self.scalar.entry(name.clone()).or_insert(0);
            *entry = entry.wrapping_sub(*amount);
        }
    }

    /// The amount of one named resource (0 when absent).
    pub fn get(&self, name: &str) -> i64 {
        match name {
            CPU => self.milli_cpu,
            MEMORY => self.memory,
            EPHEMERAL_STORAGE => self.ephemeral_storage,
            PODS => self.allowed_pod_number,
            _ => self.scalar.get(name).copied().unwrap_or(0),
        }
    }

    /// Whether cpu, memory and ephemeral storage are zero and no scalar resource is named at all
    /// (upstream tests `len(ScalarResources) == 0`, so an explicit `0` of a scalar counts as a request).
    pub fn is_zero_request(&self) -> bool {
        self.milli_cpu == 0
            && self.memory == 0
            && self.ephemeral_storage == 0
            && self.scalar.is_empty()
    }
}
