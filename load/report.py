"""The load test's numbers and its report: JSON, Markdown and PNG plots.

Latency percentiles are over the calls answered OK (a refusal is quick and would
flatter them); refusals and failures are counted by status code (and ErrorInfo
reason) on their own.  A *search* is a BestMove or Analyze call answered OK.

Capacity (``--sweep``): a step *holds* when BestMove's p99 is at most
:data:`SEARCH_P99_MS`, every cheap RPC's p99 at most :data:`CHEAP_P99_MS`, at
most :data:`REFUSED_SHARE` of the search calls were refused RESOURCE_EXHAUSTED,
and nothing failed otherwise.  The capacity is the highest search throughput of
a step that holds.  The physical limit of searches with a time budget is one
search per budget per core: ``cores / budget`` per second.

>>> percentiles([10.0, 20.0, 30.0, 40.0])["p50_ms"]
25.0
"""

from __future__ import annotations

import json
import math
import platform
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from load.runner import Probe, Sample, StepData

#: RPCs that do no search: they must stay quick whatever the searches do.
CHEAP_RPCS = ("NewGame", "LegalMoves", "CheckMove", "ApplyMove")
#: RPCs that run in a search worker.
SEARCH_RPCS = ("BestMove", "Analyze", "EstimateScores")
RPCS = CHEAP_RPCS + SEARCH_RPCS
CHEAP_P99_MS = 50.0
SEARCH_P99_MS = 250.0
REFUSED_SHARE = 0.01


def percentiles(values: Sequence[float]) -> dict[str, float | None]:
    """p50/p95/p99/max (linear interpolation) and mean of ``values`` in ms."""
    if not values:
        return {"p50_ms": None, "p95_ms": None, "p99_ms": None, "max_ms": None,
                "mean_ms": None}
    import numpy as np

    data = np.asarray(values, dtype=float)
    p50, p95, p99 = np.percentile(data, [50, 95, 99])
    return {"p50_ms": round(float(p50), 1), "p95_ms": round(float(p95), 1),
            "p99_ms": round(float(p99), 1), "max_ms": round(float(data.max()), 1),
            "mean_ms": round(float(data.mean()), 1)}


def _rate(first: Probe, last: Probe, name: str) -> float | None:
    a, b = getattr(first, name), getattr(last, name)
    if a is None or b is None or last.t <= first.t:
        return None
    return (b - a) / (last.t - first.t)


def cpu_summary(probes: Sequence[Probe], cores: int) -> dict[str, Any]:
    """CPU use over the step, in % of one core, and of the machine's cores."""
    first, last = probes[0], probes[-1]
    server = _rate(first, last, "server_cpu_s")
    workers = _rate(first, last, "workers_cpu_s")
    loadgen = _rate(first, last, "loadgen_cpu_s")
    machine = None
    if first.machine and last.machine and last.machine[1] > first.machine[1]:
        machine = (last.machine[0] - first.machine[0]) / (last.machine[1] - first.machine[1])

    def pct(x: float | None) -> float | None:
        return None if x is None else round(100 * x, 1)

    total = None if server is None or workers is None else server + workers
    return {
        "cores": cores,
        "server_front_pct_of_core": pct(server),
        "server_workers_pct_of_core": pct(workers),
        "server_total_pct_of_machine": pct(total / cores) if total is not None else None,
        "loadgen_pct_of_core": pct(loadgen),
        "machine_busy_pct": pct(machine),
    }


def timeseries(samples: Sequence[Sample], probes: Sequence[Probe], duration: float,
               window: float) -> dict[str, Any]:
    """Per-window throughput and latency percentiles of each RPC, and CPU over time."""
    import numpy as np

    bins = max(1, int(math.ceil(duration / window)))
    times = [round((i + 0.5) * window, 2) for i in range(bins)]
    rpcs: dict[str, Any] = {}
    for rpc in RPCS:
        mine = [s for s in samples if s.rpc == rpc]
        if not mine:
            continue
        count = [0] * bins
        ok_latency: list[list[float]] = [[] for _ in range(bins)]
        for s in mine:
            i = min(int(s.t / window), bins - 1)
            count[i] += 1
            if s.code == "OK":
                ok_latency[i].append(s.ms)
        series: dict[str, list[float | None]] = {"rps": [round(c / window, 2) for c in count]}
        for q in (50, 95, 99):
            series[f"p{q}_ms"] = [round(float(np.percentile(v, q)), 1) if v else None
                                  for v in ok_latency]
        rpcs[rpc] = series
    cpu: dict[str, list[float | None]] = {"t": [], "server_front_pct": [],
                                          "server_workers_pct": [], "loadgen_pct": [],
                                          "searches_per_s": []}
    for a, b in zip(probes, probes[1:], strict=False):
        if b.t - a.t < 0.5:  # a last look just after the one before: noise, not a rate
            continue
        cpu["t"].append(round((a.t + b.t) / 2, 2))
        for key, name in (("server_front_pct", "server_cpu_s"),
                          ("server_workers_pct", "workers_cpu_s"),
                          ("loadgen_pct", "loadgen_cpu_s")):
            rate = _rate(a, b, name)
            cpu[key].append(None if rate is None else round(100 * rate, 1))
        rate = _rate(a, b, "searches")
        cpu["searches_per_s"].append(None if rate is None else round(rate, 2))
    return {"window_s": window, "t": times, "rpcs": rpcs, "cpu": cpu}


def summarize(step: StepData, cores: int, budget_ms: int, workers: int | None) -> dict[str, Any]:
    """The numbers of one step."""
    samples = step.samples
    duration = max(step.duration, 1e-9)
    failures: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    rpcs: dict[str, Any] = {}
    for rpc in RPCS:
        mine = [s for s in samples if s.rpc == rpc]
        ok = [s.ms for s in mine if s.code == "OK"]
        codes = Counter(s.code for s in mine if s.code != "OK")
        refused = [s.ms for s in mine if s.code == "RESOURCE_EXHAUSTED"]
        entry: dict[str, Any] = {"calls": len(mine), "ok": len(ok),
                                 "per_s": round(len(mine) / duration, 2), **percentiles(ok),
                                 "failures": dict(codes)}
        if refused:
            entry["refused_p50_ms"] = percentiles(refused)["p50_ms"]
        if rpc in ("BestMove", "Analyze"):
            iterations = [s.iterations for s in mine if s.iterations is not None]
            searched = [s.search_s for s in mine if s.search_s is not None]
            if iterations:
                entry["mean_iterations"] = round(sum(iterations) / len(iterations), 1)
            if searched:
                entry["mean_search_ms"] = round(1000 * sum(searched) / len(searched), 1)
        rpcs[rpc] = entry
        failures.update(codes)
    for s in samples:
        if s.code != "OK":
            reasons[f"{s.code}/{s.reason}" if s.reason else s.code] += 1
    searches = sum(rpcs[r]["ok"] for r in ("BestMove", "Analyze"))
    search_seconds = sum(s.search_s or 0.0 for s in samples if s.code == "OK")
    search_calls = sum(rpcs[r]["calls"] for r in SEARCH_RPCS)
    refused = sum(rpcs[r]["failures"].get("RESOURCE_EXHAUSTED", 0) for r in SEARCH_RPCS)
    searches_per_s = searches / duration
    budget_s = budget_ms / 1000
    unexpected = {code: n for code, n in failures.items() if code != "RESOURCE_EXHAUSTED"}
    cheap_p99 = {r: rpcs[r]["p99_ms"] for r in CHEAP_RPCS if rpcs[r]["p99_ms"] is not None}
    holds = (rpcs["BestMove"]["p99_ms"] is not None
             and rpcs["BestMove"]["p99_ms"] <= SEARCH_P99_MS
             and all(v <= CHEAP_P99_MS for v in cheap_p99.values())
             and (refused <= REFUSED_SHARE * search_calls)
             and not unexpected)
    probes = step.probes
    server_searches = _rate(probes[0], probes[-1], "searches")
    server_iterations = _rate(probes[0], probes[-1], "iterations")
    window = max(1.0, round(duration / 30))
    return {
        "users": step.users,
        "duration_s": round(step.duration, 1),
        "spawn_s": round(step.spawn_seconds, 1),
        "requests": len(samples),
        "requests_per_s": round(len(samples) / duration, 1),
        "failures": dict(failures),
        "failures_by_reason": dict(reasons),
        "unexpected_failures": unexpected,
        "rpcs": rpcs,
        "searches": searches,
        "searches_per_s": round(searches_per_s, 2),
        "searches_per_s_per_core": round(searches_per_s / cores, 2),
        "search_seconds_per_s": round(search_seconds / duration, 2),
        "search_refused_share": round(refused / search_calls, 4) if search_calls else 0.0,
        "physical_limit_per_s": round(cores / budget_s, 1),
        "server_searches_per_s": None if server_searches is None else round(server_searches, 2),
        "server_iterations_per_s": (None if server_iterations is None
                                    else round(server_iterations, 0)),
        "cpu": cpu_summary(probes, cores),
        "load_average_before": [round(x, 2) for x in step.load_before],
        "load_average_after": [round(x, 2) for x in step.load_after],
        "holds": holds,
        "calls_seen": step.seen,
        "timeseries": timeseries(samples, probes, duration, window),
    }


def capacity(steps: Sequence[dict[str, Any]], cores: int, budget_ms: int) -> dict[str, Any]:
    """The highest search throughput of a step that holds (None when none does)."""
    holding = [s for s in steps if s["holds"]]
    best = max(holding, key=lambda s: s["searches_per_s"]) if holding else None
    limit = cores / (budget_ms / 1000)
    result: dict[str, Any] = {
        "criteria": {"BestMove_p99_ms_at_most": SEARCH_P99_MS,
                     "cheap_p99_ms_at_most": CHEAP_P99_MS,
                     "refused_share_of_searches_at_most": REFUSED_SHARE,
                     "cheap_rpcs": list(CHEAP_RPCS)},
        "cores": cores,
        "budget_ms": budget_ms,
        "physical_limit_per_s": round(limit, 1),
        "physical_limit_per_s_per_core": round(limit / cores, 1),
        "users": None, "searches_per_s": None, "searches_per_s_per_core": None,
        "share_of_physical_limit": None, "concurrent_searches_per_core": None,
    }
    if best is not None:
        per_core = best["searches_per_s"] / cores
        result.update({
            "users": best["users"],
            "searches_per_s": best["searches_per_s"],
            "searches_per_s_per_core": round(per_core, 2),
            "share_of_physical_limit": round(best["searches_per_s"] / limit, 3),
            # Little's law: searches in progress = throughput x time each one takes.
            "concurrent_searches_per_core": round(
                best["search_seconds_per_s"] / cores, 2),
            "BestMove_p99_ms": best["rpcs"]["BestMove"]["p99_ms"],
        })
    return result


def conditions(label: str = "") -> dict[str, Any]:
    """The machine and its load when the test ran (shared machines are noisy)."""
    import os

    info: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "host_cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    if label:
        info["note"] = label
    return info


# -- writing ----------------------------------------------------------------------------------
def _fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def markdown(report: dict[str, Any]) -> str:
    setup = report["setup"]
    lines = [f"# Load test: {setup['game']}, {setup['players']} players", ""]
    cond = report["conditions"]
    lines += [
        f"- When: {cond['when']}; machine: {cond.get('cpu', '?')}, {cond['host_cores']} cores "
        f"({cond['platform']}, Python {cond['python']})",
        f"- Load average (1, 5, 15 min) at the start: "
        f"{', '.join(str(x) for x in cond['load_average'])}"
        + (f"; {cond['note']}" if cond.get("note") else ""),
        f"- Server: {setup['server']}; {setup['workers']} search workers; cores counted: "
        f"{setup['cores']}",
        f"- Load generator: locust {setup['locust']} in one process on the same machine; "
        f"players wait {setup['wait_s'][0]}-{setup['wait_s'][1]} s between tasks; "
        f"spawn rate {setup['spawn_rate']}/s; measured for {setup['duration_s']:g} s "
        "per step once every player is running",
        "- Mix (task weights): "
        + ", ".join(f"{k} {v}" for k, v in setup["mix"].items())
        + f"; searches with {setup['budget_ms']} ms budgets (BestMove), "
        f"{3 * setup['budget_ms']} ms (Analyze), EstimateScores 200 playouts",
        f"- Positions: {setup['positions']} sampled from seeded self-play games "
        f"({setup['position_bots']})",
        "",
    ]
    for step in report["steps"]:
        lines += _step_markdown(step)
    if report.get("capacity"):
        cap = report["capacity"]
        lines += ["## Capacity", ""]
        lines += ["| users | searches/s | per core | BestMove p99 ms | worst cheap p99 ms | "
                  "refused | CPU server % of machine | load avg after | holds |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for step in report["steps"]:
            cheap = [step["rpcs"][r]["p99_ms"] for r in CHEAP_RPCS
                     if step["rpcs"][r]["p99_ms"] is not None]
            lines.append(
                f"| {step['users']} | {step['searches_per_s']} | "
                f"{step['searches_per_s_per_core']} | "
                f"{_fmt(step['rpcs']['BestMove']['p99_ms'])} | {_fmt(max(cheap) if cheap else None)} | "
                f"{100 * step['search_refused_share']:.1f}% | "
                f"{_fmt(step['cpu']['server_total_pct_of_machine'])} | "
                f"{step['load_average_after'][0]} | {'yes' if step['holds'] else 'no'} |")
        lines.append("")
        crit = cap["criteria"]
        lines.append(f"A step holds when BestMove p99 ≤ {crit['BestMove_p99_ms_at_most']:g} ms, "
                     f"every cheap RPC's p99 ≤ {crit['cheap_p99_ms_at_most']:g} ms, at most "
                     f"{100 * crit['refused_share_of_searches_at_most']:g}% of the searches are "
                     "refused and nothing else fails.")
        lines.append("")
        if cap["users"] is None:
            lines.append("**No step holds.**")
        else:
            lines.append(
                f"**Capacity: {cap['searches_per_s']} searches/s at {cap['users']} users "
                f"({cap['searches_per_s_per_core']} per core; BestMove p99 "
                f"{_fmt(cap['BestMove_p99_ms'])} ms).** The physical limit of "
                f"{cap['budget_ms']} ms searches is {cap['physical_limit_per_s']}/s on "
                f"{cap['cores']} cores ({cap['physical_limit_per_s_per_core']} per core): "
                f"{100 * cap['share_of_physical_limit']:.0f}% of it. Searches in progress "
                f"per core at that rate: {cap['concurrent_searches_per_core']}.")
        lines.append("")
        if report.get("plots", {}).get("sweep"):
            lines += [f"![sweep]({report['plots']['sweep']})", ""]
    return "\n".join(lines) + "\n"


def _step_markdown(step: dict[str, Any]) -> list[str]:
    cpu = step["cpu"]
    lines = [f"## {step['users']} users", ""]
    lines += [
        f"- {step['requests']} calls in {step['duration_s']} s: "
        f"**{step['requests_per_s']} requests/s**; searches: "
        f"**{step['searches_per_s']}/s** ({step['searches_per_s_per_core']} per core; "
        f"physical limit {step['physical_limit_per_s']}/s), search time served "
        f"{step['search_seconds_per_s']} s/s; server-side iterations/s: "
        f"{_fmt(step['server_iterations_per_s'], 0)}",
        f"- Failures by status: {step['failures'] or 'none'}"
        + (f" (by reason: {step['failures_by_reason']})" if step["failures_by_reason"] else ""),
        f"- CPU: server front process {_fmt(cpu['server_front_pct_of_core'])}% of a core, "
        f"search workers {_fmt(cpu['server_workers_pct_of_core'])}%, server in all "
        f"{_fmt(cpu['server_total_pct_of_machine'])}% of the machine; load generator "
        f"{_fmt(cpu['loadgen_pct_of_core'])}%; machine busy {_fmt(cpu['machine_busy_pct'])}%",
        f"- Load average before / after: {step['load_average_before']} / "
        f"{step['load_average_after']}",
        "",
        "| RPC | calls | per s | p50 ms | p95 ms | p99 ms | max ms | failures | notes |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for rpc, entry in step["rpcs"].items():
        notes = []
        if "mean_iterations" in entry:
            notes.append(f"{entry['mean_iterations']:g} iterations")
        if "mean_search_ms" in entry:
            notes.append(f"searched {entry['mean_search_ms']:g} ms")
        if "refused_p50_ms" in entry:
            notes.append(f"refused in {entry['refused_p50_ms']:g} ms (p50)")
        lines.append(
            f"| {rpc} | {entry['calls']} | {entry['per_s']} | {_fmt(entry['p50_ms'])} | "
            f"{_fmt(entry['p95_ms'])} | {_fmt(entry['p99_ms'])} | {_fmt(entry['max_ms'])} | "
            f"{entry['failures'] or ''} | {'; '.join(notes)} |")
    lines.append("")
    for kind in ("latency", "throughput"):
        path = step.get("plots", {}).get(kind)
        if path:
            lines += [f"![{kind}, {step['users']} users]({path})", ""]
    return lines


def plot_step(step: dict[str, Any], directory: Path, prefix: str) -> dict[str, str]:
    """Latency percentiles and throughput over time, per RPC (PNG files)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = step["timeseries"]
    t = series["t"]
    rpcs = [r for r in RPCS if r in series["rpcs"]]
    files: dict[str, str] = {}
    if not rpcs:
        return files
    columns = 2
    rows = (len(rpcs) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(12, 2.8 * rows), sharex=True,
                             squeeze=False)
    for ax, rpc in zip(axes.flat, rpcs, strict=False):
        data = series["rpcs"][rpc]
        for q, style in (("p50_ms", "o-"), ("p95_ms", "s--"), ("p99_ms", "^:")):
            values = [math.nan if v is None else v for v in data[q]]
            ax.plot(t, values, style, label=q.replace("_ms", ""), markersize=3)
        limit = CHEAP_P99_MS if rpc in CHEAP_RPCS else SEARCH_P99_MS if rpc == "BestMove" \
            else None
        if limit is not None:
            ax.axhline(limit, color="red", linewidth=0.8, alpha=0.6)
        ax.set_title(rpc, fontsize=10)
        ax.set_ylabel("ms")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(rpcs):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("seconds into the measurement")
    fig.suptitle(f"Latency per RPC (answered OK; {series['window_s']:g} s windows), "
                 f"{step['users']} users; red: p99 target")
    fig.tight_layout()
    name = f"{prefix}latency.png"
    fig.savefig(directory / name, dpi=90)
    plt.close(fig)
    files["latency"] = name

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(12, 7), sharex=True)
    bottom_values = [0.0] * len(t)
    for rpc in rpcs:
        rps = series["rpcs"][rpc]["rps"]
        top.fill_between(t, bottom_values, [b + r for b, r in zip(bottom_values, rps,
                                                                    strict=True)],
                         label=rpc, step="mid", alpha=0.8)
        bottom_values = [b + r for b, r in zip(bottom_values, rps, strict=True)]
    top.set_ylabel("calls/s (stacked)")
    top.legend(fontsize=8, ncol=4)
    top.grid(alpha=0.3)
    cpu = series["cpu"]
    if cpu["t"]:
        for key, label in (("server_front_pct", "server front process"),
                           ("server_workers_pct", "search workers"),
                           ("loadgen_pct", "load generator")):
            values = [math.nan if v is None else v for v in cpu[key]]
            bottom.plot(cpu["t"], values, label=label)
        bottom.set_ylabel("CPU, % of one core")
        twin = bottom.twinx()
        values = [math.nan if v is None else v for v in cpu["searches_per_s"]]
        twin.plot(cpu["t"], values, "k--", label="searches/s (server)")
        twin.set_ylabel("searches/s")
        twin.set_ylim(bottom=0)
        bottom.legend(fontsize=8, loc="upper left")
        twin.legend(fontsize=8, loc="upper right")
    bottom.set_ylim(bottom=0)
    bottom.grid(alpha=0.3)
    bottom.set_xlabel("seconds into the measurement")
    fig.suptitle(f"Throughput per RPC and CPU, {step['users']} users")
    fig.tight_layout()
    name = f"{prefix}throughput.png"
    fig.savefig(directory / name, dpi=90)
    plt.close(fig)
    files["throughput"] = name
    return files


def plot_sweep(steps: Sequence[dict[str, Any]], cap: dict[str, Any], directory: Path) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    users = [s["users"] for s in steps]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    left.plot(users, [s["searches_per_s"] for s in steps], "o-", label="searches/s")
    left.axhline(cap["physical_limit_per_s"], color="red", linewidth=0.8,
                 label=f"physical limit ({cap['cores']} cores / {cap['budget_ms']} ms)")
    if cap["users"] is not None:
        left.axvline(cap["users"], color="green", linewidth=0.8, label="capacity")
    refused = left.twinx()
    refused.plot(users, [100 * s["search_refused_share"] for s in steps], "x:", color="gray",
                 label="searches refused (%)")
    refused.set_ylabel("refused %")
    refused.set_ylim(bottom=0)
    refused.legend(fontsize=8, loc="lower right")
    left.set_xlabel("users")
    left.set_ylabel("searches/s")
    left.set_ylim(bottom=0)
    left.legend(fontsize=8, loc="upper left")
    left.grid(alpha=0.3)
    for rpc, style in (("BestMove", "o-"), ("LegalMoves", "s-"), ("ApplyMove", "^-")):
        values = [math.nan if s["rpcs"][rpc]["p99_ms"] is None else s["rpcs"][rpc]["p99_ms"]
                  for s in steps]
        right.plot(users, values, style, label=f"{rpc} p99")
    right.axhline(SEARCH_P99_MS, color="red", linewidth=0.8, label="BestMove target")
    right.axhline(CHEAP_P99_MS, color="orange", linewidth=0.8, label="cheap target")
    right.set_xlabel("users")
    right.set_ylabel("p99 ms")
    right.set_ylim(bottom=0)
    right.legend(fontsize=8)
    right.grid(alpha=0.3)
    fig.suptitle("Capacity sweep")
    fig.tight_layout()
    fig.savefig(directory / "sweep.png", dpi=90)
    plt.close(fig)
    return "sweep.png"


def write(report: dict[str, Any], directory: Path, plots: bool = True) -> Path:
    """Write report.json, report.md and the plots into ``directory``; the JSON's path."""
    directory.mkdir(parents=True, exist_ok=True)
    if plots:
        many = len(report["steps"]) > 1
        for step in report["steps"]:
            step["plots"] = plot_step(step, directory,
                                      f"users{step['users']}-" if many else "")
        if report.get("capacity"):
            report["plots"] = {"sweep": plot_sweep(report["steps"], report["capacity"],
                                                   directory)}
    path = directory / "report.json"
    path.write_text(json.dumps(report, indent=1) + "\n")
    (directory / "report.md").write_text(markdown(report))
    return path


def summary_line(report: dict[str, Any], path: Path) -> dict[str, Any]:
    """The one JSON line ``--json`` ends with (a sweep: the capacity step, or the last)."""
    steps = report["steps"]
    chosen = steps[-1]
    cap = report.get("capacity")
    if cap and cap.get("users") is not None:
        chosen = next(s for s in steps if s["users"] == cap["users"])
    line: dict[str, Any] = {
        "requests": chosen["requests"],
        "failures": chosen["failures"],
        "rpcs": {rpc: {k: chosen["rpcs"][rpc][k] for k in ("p50_ms", "p95_ms", "p99_ms")}
                 for rpc in RPCS if chosen["rpcs"][rpc]["calls"]},
        "searches_per_s": chosen["searches_per_s"],
        "users": chosen["users"],
        "report": str(path),
    }
    if cap:
        line["capacity"] = {k: cap[k] for k in ("users", "searches_per_s",
                                                "searches_per_s_per_core",
                                                "physical_limit_per_s")}
        line["sweep"] = [{"users": s["users"], "searches_per_s": s["searches_per_s"],
                          "BestMove_p99_ms": s["rpcs"]["BestMove"]["p99_ms"],
                          "LegalMoves_p99_ms": s["rpcs"]["LegalMoves"]["p99_ms"],
                          "holds": s["holds"]} for s in steps]
    return line
