"""deploy/kuberay/: the RayCluster of the batch commands.  The whole RayCluster is
validated against a JSON Schema of KubeRay's CRD (tests/deploy/raycluster_schema.py, written
from KubeRay's CRD file), its pod templates and metadata against Kubernetes' own schemas
(kubernetes-validate), and its Ray settings checked here: one CPU per game, the image with
the `cluster` extra (Ray with its dashboard, pinned to the manifest's rayVersion), wget for
KubeRay's probes."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from tests.deploy.raycluster_schema import raycluster_schema

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "deploy" / "kuberay" / "raycluster.yaml"
VERSION = "1.30.0"


def raycluster() -> dict[str, Any]:
    (doc,) = [d for d in yaml.safe_load_all(MANIFEST.read_text()) if d]
    return doc


def templates(doc: dict[str, Any]) -> list[dict[str, Any]]:
    spec = doc["spec"]
    return [spec["headGroupSpec"]["template"],
            *(group["template"] for group in spec["workerGroupSpecs"])]


@pytest.mark.parametrize("index", range(len(templates(raycluster()))))
def test_each_pod_template_validates_strictly(index: int) -> None:
    template = templates(raycluster())[index]
    kubernetes_validate.validate({"apiVersion": "v1", "kind": "PodTemplate",
                                  "metadata": {"name": f"furnace-batch-{index}"},
                                  "template": template}, VERSION, strict=True)


def test_the_raycluster_metadata_validates_as_object_meta() -> None:
    """The CRD leaves the RayCluster's own metadata to the API server's ObjectMeta check."""
    kubernetes_validate.validate({"apiVersion": "v1", "kind": "PodTemplate",
                                  "metadata": raycluster()["metadata"],
                                  "template": {}}, VERSION, strict=True)


def crd_errors(doc: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str, str]]:
    """(where, which rule, message) of each way doc breaks the RayCluster schema."""
    validator = jsonschema.Draft202012Validator(raycluster_schema())
    return sorted((tuple(e.absolute_path), str(e.validator), e.message)
                  for e in validator.iter_errors(doc))


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(raycluster_schema())


def test_the_whole_raycluster_validates_against_kuberays_crd() -> None:
    assert crd_errors(raycluster()) == []


def set_in(path: tuple[str | int, ...], value: Any) -> Any:
    def mutate(doc: dict[str, Any]) -> None:
        node: Any = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return mutate


def delete(path: tuple[str | int, ...]) -> Any:
    def mutate(doc: dict[str, Any]) -> None:
        node: Any = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return mutate


HEAD = ("spec", "headGroupSpec")
WORKERS = ("spec", "workerGroupSpecs", 0)

# Each mutation of the manifest, where the schema must refuse it, the rule that refuses it
# and a word of the message: the one error reported, so a test cannot pass for another reason.
MUTATIONS = {
    "unknown field under spec": (
        set_in(("spec", "rayVersions"), "2.60.0"), ("spec",), "additionalProperties",
        "'rayVersions' was unexpected"),
    "unknown field under headGroupSpec": (
        set_in((*HEAD, "replicas"), 1), HEAD, "additionalProperties",
        "'replicas' was unexpected"),
    "unknown field under a worker group": (
        set_in((*WORKERS, "maxReplica"), 8), WORKERS, "additionalProperties",
        "'maxReplica' was unexpected"),
    "unknown top-level field": (
        set_in(("status",), {}), (), "additionalProperties", "'status' was unexpected"),
    "template metadata field the CRD prunes": (
        set_in((*HEAD, "template", "metadata", "generateName"), "head-"),
        (*HEAD, "template", "metadata"), "additionalProperties",
        "'generateName' was unexpected"),
    "rayStartParams with a number": (
        set_in((*HEAD, "rayStartParams", "num-cpus"), 0),
        (*HEAD, "rayStartParams", "num-cpus"), "type", "is not of type 'string'"),
    "rayStartParams with a boolean": (
        set_in((*WORKERS, "rayStartParams"), {"block": True}),
        (*WORKERS, "rayStartParams", "block"), "type", "is not of type 'string'"),
    "replicas as a string": (
        set_in((*WORKERS, "replicas"), "4"), (*WORKERS, "replicas"), "type",
        "is not of type 'integer'"),
    "replicas beyond int32": (
        set_in((*WORKERS, "maxReplicas"), 2**31), (*WORKERS, "maxReplicas"), "maximum",
        "2147483648"),
    "enableInTreeAutoscaling as a string": (
        set_in(("spec", "enableInTreeAutoscaling"), "true"),
        ("spec", "enableInTreeAutoscaling"), "type", "is not of type 'boolean'"),
    "rayVersion as a number": (
        set_in(("spec", "rayVersion"), 2.6), ("spec", "rayVersion"), "type",
        "is not of type 'string'"),
    "an upgrade strategy KubeRay does not know": (
        set_in(("spec", "upgradeStrategy"), {"type": "Rolling"}),
        ("spec", "upgradeStrategy", "type"), "enum", "'Rolling' is not one of"),
    "no headGroupSpec": (
        delete(HEAD), ("spec",), "required", "'headGroupSpec' is a required property"),
    "no head template": (
        delete((*HEAD, "template")), HEAD, "required", "'template' is a required property"),
    "no worker template": (
        delete((*WORKERS, "template")), WORKERS, "required",
        "'template' is a required property"),
    "no worker groupName": (
        delete((*WORKERS, "groupName")), WORKERS, "required",
        "'groupName' is a required property"),
    "a pod template without containers": (
        delete((*WORKERS, "template", "spec", "containers")),
        (*WORKERS, "template", "spec"), "required", "'containers' is a required property"),
    "another kind": (
        set_in(("kind",), "RayJob"), ("kind",), "const", "'RayCluster' was expected"),
}


@pytest.mark.parametrize("name", MUTATIONS)
def test_the_crd_schema_refuses_a_wrong_raycluster(name: str) -> None:
    mutate, where, rule, words = MUTATIONS[name]
    doc = raycluster()
    mutate(doc)
    ((path, validator, message),) = crd_errors(doc)
    assert (path, validator) == (where, rule)
    assert words in message


def test_validation_catches_a_wrong_pod_template() -> None:
    template = templates(raycluster())[1]
    template["spec"]["containers"][0]["resource"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate({"apiVersion": "v1", "kind": "PodTemplate",
                                      "metadata": {"name": "wrong"},
                                      "template": template}, VERSION, strict=True)


def test_the_cluster_runs_the_image_with_ray_at_the_pinned_version() -> None:
    doc = raycluster()
    assert doc["apiVersion"] == "ray.io/v1" and doc["kind"] == "RayCluster"
    images = {c["image"] for t in templates(doc) for c in t["spec"]["containers"]}
    assert images == {"furnace-cluster:0.1.0"}
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "--build-arg EXTRAS=cluster -t furnace-cluster:0.1.0" in dockerfile
    # The extra is Ray with its dashboard (KubeRay's probes, `ray job submit`), at the
    # version the manifest names: the driver, the image and the operator agree.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extra = project["project"]["optional-dependencies"]["cluster"]
    assert extra == [f"ray[default]=={doc['spec']['rayVersion']}"]


def test_the_installed_ray_is_the_pinned_one() -> None:
    """The Ray the suite's cluster tests ran on is the one the extra pins."""
    try:
        installed = importlib.metadata.version("ray")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("Ray is not installed (the cluster extra)")
    assert installed == raycluster()["spec"]["rayVersion"]


def test_the_cluster_image_carries_what_kuberay_probes_run() -> None:
    """KubeRay's default probes run `wget ... | grep success` in the Ray container (the
    base image has bash, not wget); the runtime stage installs it with the extra."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    runtime = dockerfile[dockerfile.rindex("\nFROM "):]
    assert re.search(r"ARG EXTRAS=\n", runtime)
    assert re.search(r'case ",\$\{EXTRAS\}," in \*,cluster,\*\)[^;]*install[^;]*\bwget\b',
                     runtime)


def test_games_run_on_workers_with_whole_cores() -> None:
    doc = raycluster()
    assert doc["spec"]["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"
    for group in doc["spec"]["workerGroupSpecs"]:
        assert group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]
        (container,) = group["template"]["spec"]["containers"]
        limits = container["resources"]["limits"]
        assert float(limits["cpu"]).is_integer()
