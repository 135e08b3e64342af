"""deploy/kuberay/: the RayCluster of the batch commands.  Kubernetes' schemas do not know
KubeRay's resource, so its pod templates are validated as Kubernetes pod templates, and
its Ray settings checked here: one CPU per game, the image with the `cluster` extra."""

from __future__ import annotations

import re
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


def test_the_cluster_runs_the_image_with_ray_at_the_installed_version() -> None:
    doc = raycluster()
    assert doc["apiVersion"] == "ray.io/v1" and doc["kind"] == "RayCluster"
    images = {c["image"] for t in templates(doc) for c in t["spec"]["containers"]}
    assert images == {"furnace-cluster:0.1.0"}
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "--build-arg EXTRAS=cluster -t furnace-cluster:0.1.0" in dockerfile
    project = (ROOT / "pyproject.toml").read_text()
    extra = re.search(r"^cluster = \[\s*\"ray>=([\d.]+)\"", project, re.MULTILINE)
    assert extra, "pyproject.toml declares no cluster extra"
    wanted = tuple(int(p) for p in extra.group(1).split("."))
    assert tuple(int(p) for p in doc["spec"]["rayVersion"].split(".")) >= wanted


def test_games_run_on_workers_with_whole_cores() -> None:
    doc = raycluster()
    assert doc["spec"]["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"
    for group in doc["spec"]["workerGroupSpecs"]:
        assert group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]
        (container,) = group["template"]["spec"]["containers"]
        limits = container["resources"]["limits"]
        assert float(limits["cpu"]).is_integer()
