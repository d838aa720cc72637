#!/usr/bin/env bash
# Installs a built VexFS as a user would and uses it away from this checkout:
#  1. `cmake --install` into a temporary prefix; checks the soname, the headers,
#     that libvexfs.so exports the public API only, and that nothing installed
#     has a run path outside the prefix;
#  2. builds tests/install's C++ and C programs against the prefix, through
#     find_package(vexfs) and through pkg-config;
#  3. makes the Python wheel (`pip wheel .`) and installs it into a fresh
#     virtual environment without the system's packages;
#  4. in a private mount namespace where an empty file system covers the source
#     tree (and the build inside it), runs from the prefix `vexfs init`, `put`,
#     `search` (default embedder, every mode), `snapshot`, a mount through the
#     mount(8) helper, and a llama.cpp model build; the two programs; and the
#     wheel's `import vexfs`, search and llama.cpp model build.
# Needs root (the mount namespace, a FUSE mount): the project's test machines run
# as root; elsewhere it fails saying so. Usage: run_install_test.sh BUILD_DIR SOURCE_DIR CXX CC
set -euo pipefail
build_dir=$(realpath "$1")
source_dir=$(realpath "$2")
cxx=$3
cc=$4
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "the install test needs root for its mount namespace and FUSE mount"

work=$(mktemp -d /tmp/vexfs-install-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

echo "== cmake --install into $prefix"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
lib=$(find "$prefix" -name 'libvexfs.so.*.*.*' | head -n 1)
[ -n "$lib" ] || fail "no libvexfs.so.X.Y.Z installed under $prefix"
libdir=$(dirname "$lib")
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ "$soname" =~ ^libvexfs\.so\.[0-9]+\.[0-9]+$ ]] || fail "soname '$soname'"
[ -e "$libdir/$soname" ] && [ -e "$libdir/libvexfs.so" ] || fail "soname links missing"
[ -f "$prefix/include/vexfs/store.h" ] || fail "headers not installed"
if find "$prefix/include" -name '*.h' | xargs grep -l '#include "\(common\|store\|index\|fuse\|kv\|usxf\|db\|front_end_shared\)/'; then
  fail "an installed header includes a private header"
fi
for shipped in "$libdir/vexfs/llama/libllama.v0.5.0.so" "$libdir/vexfs/llama/libggml-cpu-x64.so" \
    "$prefix/share/vexfs/glove/glove-6b-100d-f16.vxg" "$prefix/share/vexfs/llama-vocab/ggml-vocab-qwen2.gguf" \
    "$prefix/bin/vexfs" "$prefix/sbin/mount.fuse.vexfs"; do
  [ -e "$shipped" ] || fail "$shipped not installed"
done

# The public API is exported, the internals are not: each exported symbol's own
# name (its parameters may name anything), type information and vtables included.
exported=$(nm -D --defined-only "$lib" | c++filt | sed -E 's/^[0-9a-f]+ [A-Za-z] //')
names=$(sed -E 's/^(typeinfo name for |typeinfo for |vtable for |VTT for |non-virtual thunk to )//' \
  <<<"$exported")
for public in 'vexfs::Db::Open(' 'vexfs::Store::CreateSnapshot(' 'vexfs_store_create' \
    'vexfs_search' 'vexfs::Version()' 'typeinfo for vexfs::Extension'; do
  grep -qF "$public" <<<"$exported" || fail "libvexfs.so does not export $public"
done
private=$(grep -E '^(vexfs::(index|internal|fuse|mcp|db|capi)::|faiss::|Xapian::|CLI::|nlohmann::|std::)' \
  <<<"$names" || true)
[ -z "$private" ] || fail "libvexfs.so exports internals, e.g. $(head -n 3 <<<"$private")"
echo "ok: libvexfs.so exports $(wc -l <<<"$exported") symbols, none of the internals"

# Every run path of what was installed is relative to where it lies.
while IFS= read -r elf; do
  runpath=$(readelf -d "$elf" | sed -n 's/.*\(RUNPATH\|RPATH\).*\[\(.*\)\]/\2/p')
  tr ':' '\n' <<<"$runpath" | while IFS= read -r entry; do
    [ -z "$entry" ] || [[ "$entry" == '$ORIGIN'* ]] || fail "$elf has run path '$entry'"
  done
done < <(find "$prefix" -type f \( -name '*.so*' -o -perm -u+x \) -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print)
echo "ok: every run path is \$ORIGIN-relative"

echo "== the C++ and C programs, built against the prefix"
cmake -S "$here" -B "$work/cmake-build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/cmake-build" >/dev/null
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046  # pkg-config's output is a list of flags
"$cxx" -o "$work/pkg-config-program" "$here/outside_program.cc" \
  $(pkg-config --cflags --libs vexfs) -Wl,-rpath,"$libdir"
for program in "$work/cmake-build/outside_program" "$work/cmake-build/outside_program_c" \
    "$work/pkg-config-program"; do
  readelf -d "$program" | grep -q "NEEDED.*\[$soname\]" || fail "$program does not link $soname"
done

echo "== the Python wheel, in a fresh virtual environment"
# The interpreter the module was built for (VEXFS_PYTHON; Debian's python3).
python=$(sed -n 's/^VEXFS_PYTHON:FILEPATH=//p' "$build_dir/CMakeCache.txt")
[ -x "$python" ] || fail "$build_dir names no Python the package is built for"
(cd "$source_dir" && VEXFS_BUILD_DIR="$build_dir" "$python" -m pip wheel -q --no-build-isolation \
  --no-index --no-deps -w "$work/wheel" .)
wheel=$(find "$work/wheel" -name 'vexfs-*.whl' | head -n 1)
[ -n "$wheel" ] || fail "pip wheel made no vexfs wheel"
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q --no-index "$wheel"
module=$(find "$work/venv" -name '_vexfs*.so' | head -n 1)
runpath=$(readelf -d "$module" | sed -n 's/.*RUNPATH.*\[\(.*\)\]/\1/p')
[ "$runpath" = '$ORIGIN/llama' ] || fail "the wheel's module has run path '$runpath'"
echo "ok: $(basename "$wheel") ($(du -m "$wheel" | cut -f1) MiB) installed"

echo "== away from the source tree"
cp "$here/away_from_source.sh" "$here/expect_search.py" "$work/"
for program in outside_program outside_program_c; do cp "$work/cmake-build/$program" "$work/"; done
unshare --mount --propagation private -- \
  "$work/away_from_source.sh" "$source_dir" "$build_dir" "$work" "$cxx"
echo "install test passed"
