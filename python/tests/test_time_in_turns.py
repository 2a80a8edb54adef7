"""scripts/time-in-turns, the whole-process timer of BENCHMARKS.md: it runs
every command in turns, reports one line per command with the speed-up over
the first, and stops with status 1 when a command fails."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "time-in-turns"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


def test_commands_run_in_turns_with_the_before_command(tmp_path):
    log = tmp_path / "log"
    done = run("-n", "2", "--warmup", "1", "--before", f"echo b >> {log}", "--", f"echo A >> {log}", f"echo B >> {log}")
    assert done.returncode == 0, done.stderr
    assert log.read_text().split() == ["b", "A", "b", "B"] * 3
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and lines[0].endswith(f"echo A >> {log}") and "1.00x the first's speed" in lines[0]


def test_the_faster_command_shows_a_speed_up():
    done = run("-n", "3", "--warmup", "0", "--", "sleep 0.3", "sleep 0.05")
    assert done.returncode == 0, done.stderr
    speedup = float(done.stdout.splitlines()[1].split("x the first's speed")[0].split()[-1])
    assert speedup > 2


def test_a_failing_command_stops_the_measurement():
    done = run("-n", "1", "--", "true", "exit 3")
    assert done.returncode == 1
    assert "`exit 3` exited with status 3" in done.stderr
