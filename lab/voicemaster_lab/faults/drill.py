"""`voicemaster bench faults`: how the program stands up to crashes, bad input and faults. Figures, never pass/fail.

- resume: games of both formats killed (SIGKILL) at a random step, resumed and finished (faults/resume.py)
- fuzz: mutated packs, imports, configs, phrase files and WAVs through the real commands (faults/fuzz.py), and
  hostile text and names (faults/hostile.py: invisible text, overlong words, names that are not UTF-8 or not a
  pack's), in a process of its own, so that its peak memory is its own
- resume also takes, in a quarter of the games, the question the game stood on out of the bank before resuming (a
  pack changed between the crash and the restart)
- faults: a damaged, read-only, deleted or full store, a second instance, symbolic links that loop where the store
  and the settings belong, a file where the speech cache keeps a folder, no sound server, no microphone
  (faults/damaged_store.py); the store damaged, replaced or made read-only under a running game, its data folder
  replaced by a file, and a process stopped and continued while it speaks (faults/midgame.py)
- network: the screen's server faulted by a neighbour on the Wi-Fi (idle connections, open streams, half-sent
  requests, other hosts' names, requests no browser sends) and `--screen-host`/`--port` values it cannot listen
  on (faults/network.py)
- inputs: files and inputs as another hand or a disk leaves them (faults/inputs.py): JSON nested thousands deep,
  numbers of thousands of digits, FIFOs, devices and looping links where a file or a model belongs, texts of
  megabytes, a full disk, installs killed mid-way, imports at once, recordings of nothing, onnxruntime's telemetry

Other tools read `resume.games`, `resume.exact`, `fuzz.inputs`, `fuzz.tracebacks`, `fuzz.written_on_failure`,
`fuzz.hung`, `faults.games_lost`, `faults.lost_but_said_kept`, `network.tracebacks`, `network.tv_blanked`,
`inputs.tracebacks`, `inputs.hung` and `inputs.wrong`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

from voicemaster_lab.faults import damaged_store, network, resume
from voicemaster_lab.faults import inputs as input_faults

GAMES = 100
INPUTS = 5000
SEED = 17


def run(games: int = GAMES, inputs: int = INPUTS, seed: int = SEED) -> dict[str, Any]:
    started = time.perf_counter()
    resumed = resume.run(games, seed)
    fuzz = fuzz_in_child(inputs, seed)
    faults = damaged_store.run()
    return {
        "benchmark": "faults",
        "resume": resumed,
        "fuzz": fuzz,
        "faults": faults,
        "network": network.run(),
        "inputs": input_faults.run(),
        "seconds": round(time.perf_counter() - started, 1),
    }


def fuzz_in_child(inputs: int, seed: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    # Through the real entry (`voicemaster bench fuzz`), which gives the fuzzer the command line to run.
    command = [sys.executable, "-m", "voicemaster", "bench", "fuzz", "--inputs", str(inputs), "--seed", str(seed)]
    command.append("--json")
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        # The fuzzer itself failed: that is a figure too, not a reason to lose the others.
        return {"inputs": 0, "tracebacks": None, "written_on_failure": None, "error": done.stderr.strip()[-500:]}
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def report(figures: dict[str, Any]) -> str:
    resume, fuzz, faults = figures["resume"], figures["fuzz"], figures["faults"]
    lines = ["crash and resume (SIGKILL at a random step, resumed as `play` resumes, played to the end):"]
    for name, per in resume["per_format"].items():
        lines.append(
            f"  {name:12} {per['exact']}/{per['games']} resumed exactly, {per['finished']} finished, "
            f"{per['confirmed']} confirmed by the rules engine ({per['after_fifty_fifty']} killed after a 50:50, "
            f"{per.get('after_pack_change', 0)} resumed with their question gone from the bank)"
        )
        lines += [f"      {count} x {problem}" for problem, count in per["problems"].items()]
    lines += fuzz_report(fuzz)
    lines.append(
        f"faults (each command limited to {faults['time_limit_seconds']} s): {faults['games_lost']} games lost "
        f"({faults.get('lost_but_said_kept', 0)} of them said to be kept), {faults['hung']} hung, "
        f"{faults['tracebacks']} tracebacks, {faults.get('left_behind', 0)} starts that left files behind"
    )
    for outcome in faults["outcomes"]:
        state = "HUNG" if outcome["hung"] else f"exit {outcome['exit_code']}"
        lost = {None: "", True: ", game lost", False: ", no game lost"}[outcome["game_lost"]]
        lost += {None: "", True: " (said kept)", False: " (said not kept)"}[outcome.get("said_kept")] if lost else ""
        kind = "traceback: " if outcome["traceback"] else ""
        lines.append(f"  {outcome['fault']:24} {outcome['command']}: {state}{lost}; {kind}{outcome['message'][:100]}")
    if "network" in figures:
        lines += network.report(figures["network"])
    if "inputs" in figures:
        lines += input_faults.report(figures["inputs"])
    return "\n".join(lines)


def fuzz_report(fuzz: dict[str, Any]) -> list[str]:
    """The lines of the fuzzed input's figures."""
    if fuzz.get("error"):
        return [f"fuzzed input: the fuzzer failed: {fuzz['error']}"]
    lines: list[str] = []
    slowest = fuzz["slowest"] or {}
    lines += [
        f"fuzzed input: {fuzz['inputs']} inputs, {fuzz['tracebacks']} tracebacks, "
        f"{fuzz['written_on_failure']} wrote files on failure, {fuzz['invalid_packs_written']} invalid packs "
        f"written, {fuzz['hung']} hung (bound {fuzz['hang_bound_seconds']} s); slowest "
        f"{slowest.get('seconds')} s ({slowest.get('kind')}: {', '.join(slowest.get('mutations', []))}); "
        f"peak memory {fuzz['peak_memory_mb']} MB",
    ]
    lines += [f"      {count} x {kind}" for kind, count in fuzz["tracebacks_by_kind"].items()]
    hostile = fuzz.get("hostile") or {}
    if hostile:
        lines.append(
            f"hostile input: {hostile['inputs']} inputs, {hostile['refused']} refused with a message, "
            f"{hostile['accepted']} accepted, {hostile['tracebacks']} tracebacks"
        )
        lines += [
            f"      {name:16} {tally['inputs']} inputs, {tally['refused']} refused, {tally['accepted']} accepted, "
            f"{tally['tracebacks']} tracebacks"
            for name, tally in hostile["per_class"].items()
        ]
    return lines
