"""Fixtures of the vexfs Python suite: a fresh store per test, and the vexfs CLI
(VEXFS_CLI, set by CTest) for the tests that share a store with it."""
import json
import os
import subprocess
from typing import Any, Callable, Iterator, Optional

import pytest

import vexfs


@pytest.fixture
def store_path(tmp_path) -> str:
    return str(tmp_path / "store")


@pytest.fixture
def store(store_path) -> Iterator[vexfs.Store]:
    with vexfs.Store.create(store_path) as s:
        yield s


def _cli_binary() -> str:
    binary = os.environ.get("VEXFS_CLI", "")
    if not binary or not os.access(binary, os.X_OK):
        raise RuntimeError("VEXFS_CLI must name the built vexfs binary (CTest sets it)")
    return binary


@pytest.fixture
def cli(store_path) -> Callable[..., Any]:
    """cli(*args, json_out=False, check=True, input=None): runs `vexfs --store S ARGS`;
    returns the parsed JSON with json_out, else the CompletedProcess."""
    binary = _cli_binary()

    def run(*args: str, json_out: bool = False, check: bool = True, input: Optional[bytes] = None):
        argv = [binary, "--store", store_path, *args] + (["--json"] if json_out else [])
        done = subprocess.run(argv, capture_output=True, input=input, timeout=120)
        if check and done.returncode != 0:
            raise AssertionError(f"{argv} exited {done.returncode}: {done.stderr.decode()}")
        return json.loads(done.stdout) if json_out else done

    return run
