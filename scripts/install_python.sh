#!/usr/bin/env bash
# Installs the Python package `vexfs` into the virtual environment .deps/python
# (Debian's python3, seeing Debian's packages), taking the module scripts/build.sh
# just built in build/: `.deps/python/bin/python -c 'import vexfs'` then works,
# and so does `source .deps/python/bin/activate`. Offline: pip gets nothing from
# any index. Usage: scripts/install_python.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
venv=.deps/python
python=$(sed -n 's/^VEXFS_PYTHON:FILEPATH=//p' "$build/CMakeCache.txt")
if [ -z "$python" ]; then
  echo "install_python: $build is not configured with the Python package (VEXFS_BUILD_PYTHON)" >&2
  exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv --system-site-packages "$venv"
fi
VEXFS_BUILD_DIR="$build" "$venv/bin/pip" install -q --no-build-isolation --no-index \
  --force-reinstall --no-deps .
echo "install_python: vexfs installed in $venv ($("$venv/bin/python" -c 'import vexfs; print(vexfs.__version__)'))"
