"""deploy/kuberay/: the RayCluster of the batch commands.  Kubernetes' schemas do not know
KubeRay's resource, so its pod templates are validated as Kubernetes pod templates, and
its Ray settings checked here: one CPU per game, the image with the `cluster` extra (Ray with
its dashboard, pinned to the manifest's rayVersion), wget for KubeRay's probes."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

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
