#!/usr/bin/env bash
# Installs a built VexFS into a temporary prefix with `cmake --install`, then
# builds tests/package/outside_program.cc against it twice, as an outside user
# would: through find_package(vexfs) and through pkg-config. Runs both and checks
# what they print, the library's soname and that the programs load the installed
# library. Usage: run_package_test.sh BUILD_DIR CXX
set -euo pipefail
build_dir=$1
cxx=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build_dir" --prefix "$prefix" >/dev/null
lib=$(find "$prefix" -name 'libvexfs.so.*.*.*' | head -n 1)
[ -n "$lib" ] || { echo "FAIL: no libvexfs.so.X.Y.Z installed under $prefix" >&2; exit 1; }
libdir=$(dirname "$lib")
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ "$soname" =~ ^libvexfs\.so\.[0-9]+\.[0-9]+$ ]] || { echo "FAIL: soname '$soname'" >&2; exit 1; }
[ -e "$libdir/$soname" ] && [ -e "$libdir/libvexfs.so" ] || { echo "FAIL: soname links missing" >&2; exit 1; }
[ -f "$prefix/include/vexfs/store.h" ] || { echo "FAIL: headers not installed" >&2; exit 1; }
if find "$prefix/include" -name '*.h' | xargs grep -l '#include "\(common\|store\|index\|fuse\|kv\|usxf\|api\)/' ; then
  echo "FAIL: an installed header includes a private header" >&2; exit 1
fi

# check PROGRAM: runs it on a fresh store and checks its JSON.
check() {
  local program=$1 name=$2
  readelf -d "$program" | grep -q "NEEDED.*\[$soname\]" || { echo "FAIL: $name does not link $soname" >&2; exit 1; }
  local resolved
  resolved=$(ldd "$program" | sed -n "s/.*$soname => \([^ ]*\).*/\1/p")
  [ "$(realpath "$resolved")" = "$(realpath "$libdir/$soname")" ] ||
    { echo "FAIL: $name loads '$resolved', not the installed library" >&2; exit 1; }
  "$program" "$work/store-$name" > "$work/out-$name.json"
  python3 - "$work/out-$name.json" <<'PY'
import json, sys
out = json.load(open(sys.argv[1]))
assert out["then"] == "the lighthouse keeper trims the wick", out["then"]
assert out["now"] == "replanned: sail at dawn", out["now"]
assert out["snapshot"]["names"] == ["before"], out["snapshot"]
hits = out["search"]["hits"]
assert hits and hits[0]["path"] == "notes/plan.md", hits
assert "lighthouse" in hits[0]["snippet"], hits[0]
assert out["note"] == "noted from outside", out["note"]
PY
  echo "ok: $name"
}

cmake -S "$here" -B "$work/cmake-build" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/cmake-build" >/dev/null
check "$work/cmake-build/outside_program" find_package

export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046  # pkg-config's output is a list of flags
"$cxx" -o "$work/pkg-config-program" "$here/outside_program.cc" \
  $(pkg-config --cflags --libs vexfs) -Wl,-rpath,"$libdir"
check "$work/pkg-config-program" pkg-config
