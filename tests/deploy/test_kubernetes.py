"""deploy/: the Kubernetes manifests validate against Kubernetes' schemas (shipped in
kubernetes-validate: no cluster needed), and say what the server needs; the Dockerfile
builds in stages and runs the server as a non-root user."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from ai_server import cli, sealing, security
from ai_server.config import WORKERS_PER_CORE

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = sorted((ROOT / "deploy" / "kubernetes").glob("*.yaml"))
#: The oldest Kubernetes the manifests are for (gRPC probes are GA since 1.27).
VERSION = "1.30.0"


def documents() -> list[dict[str, Any]]:
    return [doc for path in MANIFESTS for doc in yaml.safe_load_all(path.read_text()) if doc]


def by_kind(kind: str) -> list[dict[str, Any]]:
    return [doc for doc in documents() if doc["kind"] == kind]


def serve_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    cli.add_commands(sub)
    return parser.parse_args(["serve", *argv])


@pytest.mark.parametrize("doc", documents(), ids=lambda d: f"{d['kind']}/{d['metadata']['name']}")
def test_every_manifest_validates_strictly(doc: dict[str, Any]) -> None:
    kubernetes_validate.validate(doc, VERSION, strict=True)


def test_validation_catches_a_wrong_manifest() -> None:
    (deployment,) = by_kind("Deployment")
    deployment["spec"]["replica"] = 3
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VERSION, strict=True)


def test_all_the_pieces_are_there() -> None:
    kinds = sorted(doc["kind"] for doc in documents())
    assert kinds.count("Deployment") == 1
    assert "PodDisruptionBudget" in kinds and "HorizontalPodAutoscaler" in kinds
    (deployment,) = by_kind("Deployment")
    (hpa,) = by_kind("HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    assert hpa["spec"]["minReplicas"] >= 2
    selector = deployment["spec"]["selector"]["matchLabels"]
    (pdb,) = by_kind("PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"] == selector
    grpc_service = next(s for s in by_kind("Service")
                        if any(p["name"] == "grpc" for p in s["spec"]["ports"]))
    assert grpc_service["spec"]["clusterIP"] == "None"  # headless: client-side round robin
    assert grpc_service["spec"]["selector"] == selector


def _container() -> dict[str, Any]:
    (deployment,) = by_kind("Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container


def _cpu(value: str | int) -> float:
    text = str(value)
    return int(text[:-1]) / 1000 if text.endswith("m") else float(text)


def _mib(value: str) -> float:
    number, unit = re.fullmatch(r"(\d+)(Mi|Gi)", value).groups()  # type: ignore[union-attr]
    return int(number) * (1024 if unit == "Gi" else 1)


def with_key_files_here(args: argparse.Namespace, folder: Path) -> argparse.Namespace:
    """``args`` with each --seal-key file (which exists in the pod only, from its Secret)
    replaced by a fresh key file in ``folder``."""
    args.seal_key = [str(folder / f"key-{n}") for n, _ in enumerate(args.seal_key)]
    for path in args.seal_key:
        sealing.write_key_file(path)
    return args


def test_the_server_flags_parse_and_resources_match_the_workers(tmp_path: Path) -> None:
    container = _container()
    args = serve_args(container["args"])
    config = cli.config_from_args(with_key_files_here(args, tmp_path))
    resources = container["resources"]
    # Two workers share each search core; the front process needs room beyond them,
    # and the limit must not throttle it behind the workers.
    search_cores = config.workers / WORKERS_PER_CORE
    assert search_cores <= _cpu(resources["requests"]["cpu"]) < _cpu(resources["limits"]["cpu"])
    assert _cpu(resources["limits"]["cpu"]) >= search_cores + 1
    assert config.worker_nice > 0
    worker_memory = config.workers * config.max_search_memory_bytes / (1 << 20)
    assert _mib(resources["limits"]["memory"]) >= worker_memory + 256
    assert args.metrics_port and args.health_port and args.access_log
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert (ports["grpc"], ports["health"], ports["metrics"]) == (
        args.port, args.health_port, args.metrics_port)
    # Exposed on every interface: TLS, and callers authenticated by tokens.
    assert not security.is_loopback(args.host) and args.tls_cert and args.token_file
    assert not args.allow_unauthenticated and not args.insecure
    # Prometheus scrapes the pod's address: the metrics leave loopback on purpose.
    assert args.metrics_host and not security.is_loopback(args.metrics_host)


def _mount_of(path: str) -> dict[str, Any]:
    """The volume mounted over ``path`` (a directory: Kubernetes renews its files in
    place; a subPath mount would never see a renewal)."""
    container = _container()
    (deployment,) = by_kind("Deployment")
    volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
    (mount,) = [m for m in container["volumeMounts"]
                if path.startswith(m["mountPath"].rstrip("/") + "/")]
    assert "subPath" not in mount and mount.get("readOnly") is True
    return volumes[mount["name"]]


def test_certificates_and_tokens_are_files_the_server_reads_again() -> None:
    """Renewed Secrets reach the running pods: the server reads the files again when
    they change (--reload-interval), so rotation needs no restart."""
    args = serve_args(_container()["args"])
    assert args.reload_interval > 0
    assert _mount_of(args.tls_cert)["secret"]["secretName"] == "furnace-tls"
    assert _mount_of(args.tls_key)["secret"]["secretName"] == "furnace-tls"
    tokens = _mount_of(args.token_file)["secret"]
    assert tokens["secretName"] == "furnace-tokens"
    assert not args.token_env  # an environment variable is read once, at start


def test_the_replicas_share_their_sealing_keys_from_a_secret() -> None:
    """Several replicas behind one Service: a state one seals comes back to another, so
    they seal with the same keys, from one Secret, and not each with a key of its own
    (what the server makes when given none)."""
    (deployment,) = by_kind("Deployment")
    (hpa,) = by_kind("HorizontalPodAutoscaler")
    assert deployment["spec"]["replicas"] > 1 and hpa["spec"]["minReplicas"] > 1
    args = serve_args(_container()["args"])
    assert args.seal_key, "each replica would seal with a key of its own"
    for path in args.seal_key:
        assert _mount_of(path)["secret"]["secretName"] == "furnace-seal"
    assert len(set(args.seal_key)) == len(args.seal_key)


def test_probes_are_native_grpc_probes_of_the_health_service() -> None:
    container = _container()
    health_port = serve_args(container["args"]).health_port
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"]["port"] == health_port
    assert container["readinessProbe"]["grpc"]["service"] == "furnace.v1.FurnaceService"


def test_the_pod_runs_as_non_root_on_a_read_only_root() -> None:
    (deployment,) = by_kind("Deployment")
    pod = deployment["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    container = _container()
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert "/tmp" in {m["mountPath"] for m in container["volumeMounts"]}


def test_dockerfile_builds_in_stages_and_runs_as_non_root() -> None:
    text = (ROOT / "deploy" / "Dockerfile").read_text()
    stages = re.findall(r"^FROM\s+(\S+)(?:\s+AS\s+(\S+))?", text, re.MULTILINE)
    assert len(stages) >= 2 and stages[0][1] == "build"
    final = text[text.rindex("\nFROM"):]
    assert "COPY --from=build" in final and "gcc" not in final
    assert re.search(r"^USER\s+10001", final, re.MULTILINE)
    assert "import ext.samara_kernel" in text  # the build fails if the kernels did not
    # The image's entrypoint and default command make a valid `furnace serve` line.
    entry = re.search(r"^ENTRYPOINT\s+(\[.*\])", text, re.MULTILINE)
    command = re.search(r"^CMD\s+(\[.*?\])\s*$", text.replace("\\\n", ""),
                        re.MULTILINE | re.DOTALL)
    assert entry and command
    assert yaml.safe_load(entry.group(1)) == ["furnace", "serve"]
    args = serve_args(yaml.safe_load(command.group(1)))
    cli.config_from_args(args)
    _, warnings = security.config_from_args(args)  # open on purpose: said explicitly
    assert args.allow_unauthenticated and warnings
    assert _container()["image"].split(":")[0] == "furnace"


def test_the_image_gets_every_package() -> None:
    """Every package pyproject.toml installs is copied into the image and not left out
    of its build context: the `furnace` command imports the tools too."""
    project = (ROOT / "pyproject.toml").read_text()
    include = re.search(r"^include = \[(.*?)\]", project, re.MULTILINE | re.DOTALL)
    assert include
    packages = [name.rstrip("*") for name in re.findall(r'"([^"]+)"', include.group(1))]
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    ignored = (ROOT / "deploy" / "Dockerfile.dockerignore").read_text().split()
    for package in packages:
        assert re.search(rf"^COPY {package} {package}$", dockerfile, re.MULTILINE), package
        assert package not in ignored, package
