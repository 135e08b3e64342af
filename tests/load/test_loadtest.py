"""``furnace loadtest``: a tiny real run (a few players, a few seconds) and the report's
structure; never its latencies (the machine is shared and noisy)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from load import report
from load.runner import Probe, Sample, StepData

ROOT = Path(__file__).resolve().parents[2]
MIX_RPCS = {"NewGame", "LegalMoves", "CheckMove", "ApplyMove", "BestMove", "Analyze",
            "EstimateScores"}


def run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / "report"
    env = dict(os.environ, FURNACE_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from furnace_cli import main; sys.exit(main())",
         "loadtest", "--positions", "20", "--workers", "1", "--wait", "0.01,0.05",
         "--spawn-rate", "50", "--report-dir", str(out), "--json", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    return result, out


def test_a_short_run_calls_every_rpc_and_writes_the_report(tmp_path: Path) -> None:
    result, out = run(tmp_path, "--users", "4", "--duration", "3s")
    assert result.returncode == 0, result.stderr
    assert "loadtest:" in result.stderr  # the progress line
    line = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(line) >= {"requests", "failures", "rpcs", "searches_per_s", "report"}
    assert line["requests"] > 0 and line["searches_per_s"] > 0
    assert set(line["failures"]) <= {"RESOURCE_EXHAUSTED"}
    for rpc in ("LegalMoves", "BestMove"):
        assert set(line["rpcs"][rpc]) == {"p50_ms", "p95_ms", "p99_ms"}
    data = json.loads(Path(line["report"]).read_text())
    (step,) = data["steps"]
    assert set(step["calls_seen"]) == MIX_RPCS  # every RPC of the mix was called
    assert step["users"] == 4 and step["requests"] == line["requests"]
    assert step["cpu"]["server_workers_pct_of_core"] is not None
    assert step["server_iterations_per_s"] is not None
    assert set(step["timeseries"]["rpcs"]) <= MIX_RPCS
    assert data["setup"]["positions"] == 20 and data["conditions"]["load_average"]
    for name in ("report.md", "latency.png", "throughput.png", "server.log"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "latency.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    markdown = (out / "report.md").read_text()
    assert "| BestMove |" in markdown and "![latency" in markdown
    assert list((tmp_path / "cache").rglob("samara-2p-*.json"))  # positions cached


def test_a_sweep_reports_each_step_and_the_capacity(tmp_path: Path) -> None:
    result, out = run(tmp_path, "--sweep", "1,2", "--duration", "1s", "--no-plots")
    assert result.returncode == 0, result.stderr
    line = json.loads(result.stdout.strip().splitlines()[-1])
    assert [s["users"] for s in line["sweep"]] == [1, 2]
    assert line["capacity"]["physical_limit_per_s"] == pytest.approx(
        (os.cpu_count() or 1) / 0.1)
    data = json.loads((out / "report.json").read_text())
    assert len(data["steps"]) == 2 and "criteria" in data["capacity"]
    assert "## Capacity" in (out / "report.md").read_text()


def test_bad_options_are_one_line_errors(tmp_path: Path) -> None:
    result, _ = run(tmp_path, "--game", "no-such-game", "--duration", "1s")
    assert result.returncode == 2
    assert "furnace loadtest: error:" in result.stderr and "Traceback" not in result.stderr


# -- the numbers, on made-up samples ----------------------------------------------------------
def step_data(samples: list[Sample], users: int = 10) -> StepData:
    probes = [Probe(0.0, 1.0, 10.0, 0.0, 0.0, 0.5, (0.0, 0.0)),
              Probe(10.0, 2.0, 25.0, 100.0, 1e5, 1.5, (10.0, 20.0))]
    return StepData(users=users, duration=10.0, samples=samples, probes=probes,
                    load_before=(1.0, 1.0, 1.0), load_after=(1.0, 1.0, 1.0),
                    spawn_seconds=1.0, seen={})


def calls(rpc: str, ms: float, n: int, code: str = "OK", **extra: Any) -> list[Sample]:
    return [Sample(t=i * 0.1, rpc=rpc, ms=ms, code=code, **extra) for i in range(n)]


def test_step_numbers_and_what_holds() -> None:
    quick = calls("LegalMoves", 5.0, 100) + calls("BestMove", 120.0, 50, iterations=900,
                                                  search_s=0.1)
    step = report.summarize(step_data(quick), cores=2, budget_ms=100, workers=2)
    assert step["searches_per_s"] == 5.0 and step["searches_per_s_per_core"] == 2.5
    assert step["rpcs"]["BestMove"]["p99_ms"] == 120.0
    assert step["rpcs"]["BestMove"]["mean_iterations"] == 900
    assert step["cpu"]["server_front_pct_of_core"] == 10.0
    assert step["cpu"]["server_workers_pct_of_core"] == 150.0
    assert step["server_searches_per_s"] == 10.0 and step["holds"]

    slow_cheap = quick + calls("ApplyMove", 80.0, 10)
    assert not report.summarize(step_data(slow_cheap), 2, 100, 2)["holds"]
    refused = quick + calls("BestMove", 2.0, 5, code="RESOURCE_EXHAUSTED")
    refused_step = report.summarize(step_data(refused), 2, 100, 2)
    assert refused_step["failures"] == {"RESOURCE_EXHAUSTED": 5}
    assert refused_step["rpcs"]["BestMove"]["p99_ms"] == 120.0  # over answered calls only
    assert not refused_step["holds"]  # 5 of 55 searches refused
    broken = quick + calls("LegalMoves", 2.0, 1, code="INTERNAL")
    assert report.summarize(step_data(broken), 2, 100, 2)["unexpected_failures"] == {
        "INTERNAL": 1}


def test_capacity_is_the_best_step_that_holds() -> None:
    steps = []
    for users, best_ms in ((10, 110.0), (20, 130.0), (50, 400.0)):
        samples = calls("LegalMoves", 5.0, 100) + calls(
            "BestMove", best_ms, users * 2, search_s=0.1)
        steps.append(report.summarize(step_data(samples, users), 2, 100, 2))
    cap = report.capacity(steps, cores=2, budget_ms=100)
    assert cap["users"] == 20 and cap["searches_per_s"] == 4.0
    assert cap["physical_limit_per_s"] == 20.0 and cap["share_of_physical_limit"] == 0.2
    line = report.summary_line({"steps": steps, "capacity": cap}, Path("r.json"))
    assert line["users"] == 20 and [s["holds"] for s in line["sweep"]] == [True, True, False]


def test_every_player_tries_the_whole_mix_first() -> None:
    from load.users import FIRST_ROUND, MIX

    # A short run calls every RPC because each player runs every task once at its start
    # (drawn by weight alone, NewGame is 1 task in 16 and a slow run may never draw it).
    assert sorted(FIRST_ROUND) == sorted(MIX) and FIRST_ROUND[0] == "new_game"
