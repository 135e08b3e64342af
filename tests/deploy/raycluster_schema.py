"""A JSON Schema (draft 2020-12) of KubeRay's RayCluster (ray.io/v1), written for Furnace's
tests from the facts of KubeRay's CRD, so that deploy/kuberay/raycluster.yaml is checked
as a whole without a Kubernetes API server.

Source: ray-project/kuberay release v1.7.0 (commit 59d663aeec13760646da3db9c1cf8cfe883e30b7,
the newest release; its samples run Ray 2.52), file
ray-operator/config/crd/bases/ray.io_rayclusters.yaml, the openAPIV3Schema of version v1.
The schema below is not a copy of that file: it states its structural facts (fields, types,
required fields, enums) in this module's own terms.

What the CRD implies and how it is stated here:
- No object of version v1 carries x-kubernetes-preserve-unknown-fields, so the API server
  prunes (with kubectl's strict field validation: refuses) every field the CRD does not
  name.  Every object stated here is therefore closed (additionalProperties: false), except
  the parts marked `kubernetes(...)` below.
- Fields typed int32 in the CRD are integers within the int32 range; int-or-string
  quantities are integers or strings in Kubernetes' quantity syntax.
- `managedBy` has no enum in the CRD but a CEL rule admitting two values: stated as an enum.
- The CRD requires minReplicas and maxReplicas in each worker group but also gives them
  defaults, which the API server applies before validating; this schema requires them
  (stricter than the server: a manifest should say its bounds).
- The pod templates are PodTemplateSpecs whose metadata the CRD restricts to annotations,
  finalizers, labels, name and namespace (other metadata fields are pruned).  Their pod
  `spec` is only required to be an object with containers here: the tests validate each
  template's PodSpec with kubernetes-validate, against Kubernetes' own schema.
- The RayCluster's own `metadata` is an ObjectMeta the API server checks (the CRD says only
  `object`); the tests validate it with kubernetes-validate too.
- Other embedded Kubernetes types (the head Service, the autoscaler's env, resources,
  securityContext and volume mounts, the history collector's env and resources) are
  objects whose inner fields are not restated (`kubernetes(...)`): a manifest that starts
  using them needs their validation added the way the pod templates have it.
- `status` is written by the operator, not by a manifest: it is refused here.

To update for a new KubeRay release: fetch ray-project/kuberay, read the file above at the
release tag (`git show vX.Y.Z:ray-operator/config/crd/bases/ray.io_rayclusters.yaml`),
diff it against the release named here (`git diff v1.7.0 vX.Y.Z -- <that path>`), carry
each added, removed or retyped field of the non-template parts into the functions below,
and change KUBERAY_VERSION and the commit above.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

KUBERAY_VERSION = "v1.7.0"
CRD_PATH = "ray-operator/config/crd/bases/ray.io_rayclusters.yaml"

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
# Kubernetes' resource quantity: a signed decimal, then a binary suffix (Ki..Ei), a decimal
# suffix (n, u, m, k, M..E) or a decimal exponent.
QUANTITY_PATTERN = (r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)"
                    r"(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+))?$")


def string(*allowed: str) -> Schema:
    return {"type": "string", "enum": list(allowed)} if allowed else {"type": "string"}


def boolean() -> Schema:
    return {"type": "boolean"}


def int32() -> Schema:
    return {"type": "integer", "minimum": INT32_MIN, "maximum": INT32_MAX}


def int_or_string() -> Schema:
    return {"type": ["integer", "string"]}


def quantity() -> Schema:
    return {"type": ["integer", "string"], "pattern": QUANTITY_PATTERN}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def strings() -> Schema:
    return array(string())


def string_map() -> Schema:
    """A map of strings to strings (labels, annotations, rayStartParams, resources)."""
    return {"type": "object", "additionalProperties": string()}


def closed(properties: dict[str, Schema], *required: str) -> Schema:
    """An object the CRD prunes: only the named fields, of the stated types."""
    schema: Schema = {"type": "object", "properties": properties,
                      "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def kubernetes(type_name: str) -> Schema:
    """An embedded Kubernetes type whose fields are Kubernetes' and not restated here."""
    return {"type": "object",
            "$comment": f"Kubernetes {type_name}: inner fields not checked by this schema"}


def embedded_metadata() -> Schema:
    """The metadata the CRD keeps on an embedded object (pod template, head Service)."""
    return closed({"annotations": string_map(), "finalizers": strings(),
                   "labels": string_map(), "name": string(), "namespace": string()})


def pod_template() -> Schema:
    """A PodTemplateSpec; its PodSpec is validated with kubernetes-validate instead."""
    return closed({"metadata": embedded_metadata(),
                   "spec": {"type": "object", "required": ["containers"]}})


def label_selector() -> Schema:
    requirement = closed({"key": string(), "operator": string(), "values": strings()},
                         "key", "operator")
    return closed({"matchExpressions": array(requirement), "matchLabels": string_map()})


def network_rules(peers: str) -> Schema:
    """Ingress (`from`) or egress (`to`) rules of KubeRay's network policy."""
    port = closed({"endPort": int32(), "port": int_or_string(), "protocol": string()})
    peer = closed({"ipBlock": closed({"cidr": string(), "except": strings()}, "cidr"),
                   "namespaceSelector": label_selector(),
                   "podSelector": label_selector()})
    return array(closed({peers: array(peer), "ports": array(port)}))


def network_policy_of_pods() -> Schema:
    return closed({"egressRules": network_rules("to"), "ingressRules": network_rules("from")})


def network_policy() -> Schema:
    worker_group = closed({"groupName": string(), "egressRules": network_rules("to"),
                           "ingressRules": network_rules("from")}, "groupName")
    return closed({"head": network_policy_of_pods(),
                   "mode": string("DenyAll", "DenyAllIngress", "DenyAllEgress"),
                   "worker": network_policy_of_pods(),
                   "workerGroups": array(worker_group)})


def autoscaler_options() -> Schema:
    return closed({
        "args": strings(),
        "command": strings(),
        "env": array(kubernetes("EnvVar")),
        "envFrom": array(kubernetes("EnvFromSource")),
        "idleTimeoutSeconds": int32(),
        "image": string(),
        "imagePullPolicy": string(),
        "resources": kubernetes("ResourceRequirements"),
        "securityContext": kubernetes("SecurityContext"),
        "upscalingMode": string("Default", "Aggressive", "Conservative"),
        "version": string("v1", "v2"),
        "volumeMounts": array(kubernetes("VolumeMount")),
    })


def gcs_fault_tolerance_options() -> Schema:
    secret = closed({"value": string(), "valueFrom": kubernetes("EnvVarSource")})
    storage = closed({"accessModes": strings(), "claimName": string(),
                      "deletionPolicy": string("DeleteWithCluster", "Retain"),
                      "size": quantity(), "storageClassName": string(),
                      "subPath": string()})
    return closed({"backend": string("redis", "rocksdb"),
                   "externalStorageNamespace": string(),
                   "redisAddress": string(),
                   "redisPassword": secret,
                   "redisUsername": secret,
                   "storage": storage})


def head_group_spec() -> Schema:
    head_service = closed({"apiVersion": string(), "kind": string(),
                           "metadata": embedded_metadata(),
                           "spec": kubernetes("ServiceSpec"),
                           "status": kubernetes("ServiceStatus")})
    ingress = closed({"host": string(), "path": string(),
                      "pathType": string("Exact", "Prefix", "ImplementationSpecific"),
                      "tls": array(closed({"hosts": strings(), "secretName": string()}))})
    return closed({"enableIngress": boolean(),
                   "headService": head_service,
                   "ingressOptions": ingress,
                   "labels": string_map(),
                   "rayStartParams": string_map(),
                   "resources": string_map(),
                   "serviceType": string(),
                   "template": pod_template()},
                  "template")


def worker_group_spec() -> Schema:
    return closed({"groupName": string(),
                   "idleTimeoutSeconds": int32(),
                   "labels": string_map(),
                   "maxReplicas": int32(),
                   "minReplicas": int32(),
                   "numOfHosts": int32(),
                   "priority": int32(),
                   "rayStartParams": string_map(),
                   "replicas": int32(),
                   "resources": string_map(),
                   "scaleStrategy": closed({"workersToDelete": strings()}),
                   "suspend": boolean(),
                   "template": pod_template()},
                  "groupName", "maxReplicas", "minReplicas", "template")


def raycluster_spec() -> Schema:
    collector = closed({"env": array(kubernetes("EnvVar")), "image": string(),
                        "imagePullPolicy": string(),
                        "resources": kubernetes("ResourceRequirements")})
    return closed({
        "authOptions": closed({"enableK8sTokenAuth": boolean(),
                               "mode": string("disabled", "token"),
                               "secretName": string()}),
        "autoscalerOptions": autoscaler_options(),
        "enableInTreeAutoscaling": boolean(),
        "gcsFaultToleranceOptions": gcs_fault_tolerance_options(),
        "headGroupSpec": head_group_spec(),
        "headServiceAnnotations": string_map(),
        "historyServerOptions": closed({"collectorOptions": collector}),
        "managedBy": string("ray.io/kuberay-operator", "kueue.x-k8s.io/multikueue"),
        "networkPolicy": network_policy(),
        "rayVersion": string(),
        "suspend": boolean(),
        "tlsOptions": closed({"enabled": boolean()}),
        "upgradeStrategy": closed({"type": string("Recreate", "None")}),
        "workerGroupSpecs": array(worker_group_spec()),
    }, "headGroupSpec")


def raycluster_schema() -> Schema:
    """The whole RayCluster object as a manifest states it."""
    schema = closed({"apiVersion": {"const": "ray.io/v1"},
                     "kind": {"const": "RayCluster"},
                     "metadata": {"type": "object", "required": ["name"]},
                     "spec": raycluster_spec()},
                    "apiVersion", "kind", "metadata", "spec")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$comment"] = f"KubeRay {KUBERAY_VERSION}, {CRD_PATH}, version v1"
    return schema
