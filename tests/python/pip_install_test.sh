#!/usr/bin/env bash
# `pip install --no-build-isolation` of this checkout into a fresh virtual
# environment, offline (--no-index), taking the module from the CMake build
# given (VEXFS_BUILD_DIR, as the README's setup does); then the installed
# package, from outside the checkout, writes, searches, snapshots, diffs and
# restores a store, its stubs and py.typed are installed, and it uninstalls.
# Usage: pip_install_test.sh REPO_ROOT BUILD_DIR PYTHON
set -euo pipefail
root="$1"
build="$2"
python="$3"
# Only the virtual environment may provide vexfs here.
unset PYTHONPATH MYPYPATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" -m venv --system-site-packages "$work/venv"
VEXFS_BUILD_DIR="$build" "$work/venv/bin/pip" install -q --no-build-isolation --no-index "$root"

site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
for file in __init__.py errors.py kv.py _vexfs.pyi py.typed; do
  [ -f "$site/vexfs/$file" ] || { echo "pip_install_test: $file was not installed" >&2; exit 1; }
done

cd "$work"  # not the checkout: the installed package is what is imported
"$work/venv/bin/python" - "$work/store" "$site" <<'PY'
import sys
import vexfs

assert vexfs.__file__.startswith(sys.argv[2]), vexfs.__file__
with vexfs.Store.create(sys.argv[1]) as s:
    s.write("a.md", "installed packages find wombats")
    assert [h.path for h in s.search("wombats")] == ["a.md"]
    s.snapshot("v1")
    s.write("a.md", "changed")
    assert [(c.kind, c.path) for c in s.diff("v1")] == [("modified", "a.md")]
    s.restore("v1")
    assert s.read_text("a.md") == "installed packages find wombats"
print("pip_install_test: the installed package works")
PY

"$work/venv/bin/pip" uninstall -q -y vexfs
if "$work/venv/bin/python" -c 'import vexfs' 2>/dev/null; then
  echo "pip_install_test: vexfs is still importable after uninstall" >&2
  exit 1
fi
echo "pip_install_test: installed, used and uninstalled offline"
