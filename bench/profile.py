"""Where the server's time goes under an evening's load: py-spy on every Python process of the
server(s) while bench/evening.py measures a step (`make bench-profile`), summed into
bench/PROFILE.md. py-spy reads the stacks from outside (nothing changes in the server) 100 times
a second; its CPU shares the cores, so a profiled step's timings are not the budgets'. Shares:
*inclusive* (on the stack) and *self* (running), the samples of threads waiting in Python's own
waits (WAITING) counted apart. `python -m bench.profile FILE...` sums raw files again."""

from __future__ import annotations

import argparse
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bench.server import BENCH, ROOT, TMP

PY_SPY = ROOT / ".venv" / "bin" / "py-spy"
PROFILE = BENCH / "PROFILE.md"
RATE = 100  # samples a second, each process
TOP = 25
# The leaves of a thread waiting, not working: a view thread for its next request, a thread for
# its future's result, the event loop in epoll.
WAITING = ("Condition.wait (threading.py:", "EpollSelector.select (selectors.py:")


def python_processes(groups: list[int]) -> list[int]:
    """The processes of the process groups `groups` (a server each) that run Python: granian's
    main process and its workers, not scripts/serve's shell."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parts = stat.read_text().rsplit(")", 1)[1].split()
            executable = (stat.parent / "exe").resolve().name
        except OSError:
            continue
        if int(parts[2]) in groups and executable.startswith("python"):
            found.append(int(stat.parent.name))
    return sorted(found)


@dataclass
class Recording:
    """py-spy running on the server's Python processes, each writing its raw stacks."""

    processes: list[subprocess.Popen]
    files: list[Path]

    def wait(self) -> list[Path]:
        for process in self.processes:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
        return [file for file in self.files if file.exists() and file.stat().st_size]


def record(groups: list[int], seconds: float, name: str) -> Recording:
    """py-spy on every Python process of `groups` for `seconds`, in the background."""
    if not PY_SPY.exists():
        raise SystemExit(f"py-spy is missing: {PY_SPY} (pip install -e '.[test,bench]')")
    processes, files = [], []
    for pid in python_processes(groups):
        file = TMP / f"profile-{name}-{pid}.txt"
        file.unlink(missing_ok=True)
        command = [str(PY_SPY), "record", "--pid", str(pid), "--format", "raw"]
        command += ["--output", str(file), "--duration", str(round(seconds))]
        command += ["--rate", str(RATE), "--nonblocking", "--function"]
        with (TMP / f"profile-{name}-{pid}.log").open("w") as said:
            processes.append(subprocess.Popen(command, stdout=said, stderr=subprocess.STDOUT))
        files.append(file)
    return Recording(processes, files)


def frames_of(files: list[Path]) -> tuple[int, Counter, Counter, int]:
    """The samples of working threads, each frame's inclusive and self samples among them, and
    the samples left out as waiting (WAITING), from py-spy's raw files (a line a stack: its
    frames outermost first, separated by `;`, then the count). A frame is
    `function (file:line of the def)`."""
    total, inclusive, own, waiting = 0, Counter(), Counter(), 0
    for file in files:
        for line in file.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            samples = int(count)
            frames = stack.split(";")
            if frames[-1].startswith(WAITING):
                waiting += samples
                continue
            total += samples
            for frame in set(frames):
                inclusive[frame] += samples
            own[frames[-1]] += samples
    return total, inclusive, own, waiting


def table(counted: Counter, total: int, top: int) -> list[str]:
    rows = ["| frame | share | samples |", "|---|---:|---:|"]
    for frame, samples in counted.most_common(top):
        rows.append(f"| `{frame}` | {100 * samples / total:.1f} % | {samples:,} |")
    return rows


def write(files: list[Path], what: str, machine: dict) -> None:
    """bench/PROFILE.md: the top frames, inclusive and self, of the samples in `files`."""
    total, inclusive, own, waiting = frames_of(files)
    if not total:
        PROFILE.write_text("# Where the server's time goes\n\nNo samples were taken.\n")
        return
    text = [
        "# Where the server's time goes",
        "",
        f"`make bench-profile` (bench/profile.py) on {machine['date']}, commit "
        f"{machine['commit']}, {machine['cores']} cores ({machine['cpu']}): {what}. py-spy on "
        f"each Python process of the server that ran ({len(files)}: granian's workers), "
        f"{RATE} samples a second each: {total:,} samples of threads at work ({waiting:,} more "
        "of threads waiting, left out). *Inclusive*: the samples in which the frame is on the "
        "stack; *self*: those in which it is the frame running. A frame is a function and its "
        "file (the line of its `def`).",
        "",
        f"## Inclusive, top {TOP}",
        "",
        *table(inclusive, total, TOP),
        "",
        f"## Self, top {TOP}",
        "",
        *table(own, total, TOP),
        "",
    ]
    PROFILE.write_text("\n".join(text))


def main() -> None:
    parser = argparse.ArgumentParser(description="Sum py-spy raw files: the top frames.")
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    total, inclusive, own, waiting = frames_of(args.files)
    print(f"{total:,} samples at work ({waiting:,} waiting, left out)\n\nInclusive\n")
    print("\n".join(table(inclusive, total, args.top)))
    print("\nSelf\n")
    print("\n".join(table(own, total, args.top)))


if __name__ == "__main__":
    main()
