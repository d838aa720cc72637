#!/usr/bin/env python3
"""Checks python/vexfs/_vexfs.pyi against the built module with mypy's stubtest.

Every class, method, property and function the stubs declare must exist in
vexfs._vexfs and every public one of the module must be declared. Two
differences are pybind11's and not the stubs' fault, and are let through by
name: its classes have the metaclass pybind11_type, and their __init__ takes
*args (and refuses to construct from Python). Run with PYTHONPATH at the
staged package (<build>/python). Exits 1 naming each other difference.
"""
import re
import subprocess
import sys

PYBIND11_ARTEFACTS = [
    re.compile(r"^vexfs\._vexfs\.\w+ is inconsistent, metaclass differs$"),
    re.compile(r"^vexfs\._vexfs\.\w+\.__init__ is inconsistent, stub does not have \*args argument \"args\"$"),
]


def main() -> int:
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--concise", "vexfs._vexfs"],
        capture_output=True,
        text=True,
    )
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    problems = [line for line in lines if not any(p.match(line) for p in PYBIND11_ARTEFACTS)]
    if run.returncode not in (0, 1) or "error: not checking stubs" in run.stdout + run.stderr:
        print(run.stdout + run.stderr, file=sys.stderr)
        return 1
    if problems:
        print("check_stubs: the stubs and the module differ:", file=sys.stderr)
        for line in problems:
            print("  " + line, file=sys.stderr)
        return 1
    print(f"check_stubs: stubs match the module ({len(lines)} pybind11 artefacts let through)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
