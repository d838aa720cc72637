"""Builds vexfs._vexfs, the compiled half of the Python package, with this
project's CMake (pyproject.toml holds the package's metadata).

By default the whole library is configured and built in Release under the
build directory setuptools chooses, for the interpreter running pip: that is
what `pip install --no-build-isolation .` does on a fresh checkout, offline.
With VEXFS_BUILD_DIR naming a configured CMake build of this checkout (the
README's setup passes build/), only the module target is brought up to date
there and taken, so nothing is compiled twice.

The package carries what the module loads at run time: llama.cpp's libraries
(vexfs/llama/, the module's $ORIGIN-relative run path), the default embedder's
GloVe vectors (vexfs/glove/) and llama.cpp's tokenizer vocabularies, so a wheel
(`pip wheel --no-build-isolation .`) installs and runs in any virtual
environment, away from this checkout.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        build_dir = os.environ.get("VEXFS_BUILD_DIR")
        if build_dir:
            build_dir = str(Path(build_dir).resolve())
            cache = Path(build_dir) / "CMakeCache.txt"
            if not cache.exists() or "VEXFS_BUILD_PYTHON:BOOL=ON" not in cache.read_text():
                raise RuntimeError(
                    f"vexfs: VEXFS_BUILD_DIR={build_dir} is not a CMake build of VexFS with the "
                    "Python package (VEXFS_BUILD_PYTHON=ON); scripts/build.sh makes one in build/"
                )
        else:
            build_dir = str(Path(self.build_temp).resolve() / "cmake")
            self.configure(build_dir)
        self.run_command_line(["cmake", "--build", build_dir, "--target", "_vexfs"])
        built = Path(build_dir) / "python" / "vexfs" / ("_vexfs" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not built.exists():
            raise RuntimeError(
                f"vexfs: {built} was not built: is {build_dir} configured for this Python "
                f"({sys.executable})? Configure it with -DVEXFS_PYTHON={sys.executable}"
            )
        # CMake's install of the `python` component gives the module its
        # $ORIGIN-relative run path and lays the llama.cpp libraries, the GloVe
        # vectors and the vocabularies beside it; the package directory of the
        # wheel takes all of it. --strip: the wheel needs no debugging symbols
        # (a RelWithDebInfo build carries tens of MiB of them).
        staging = Path(self.build_temp).resolve() / "cmake-install"
        shutil.rmtree(staging, ignore_errors=True)
        self.run_command_line(["cmake", "--install", build_dir, "--component", "python",
                               "--prefix", str(staging), "--strip"])
        package_dir = Path(self.get_ext_fullpath(ext.name)).parent
        package_dir.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staging / "vexfs", package_dir, dirs_exist_ok=True)

    def configure(self, build_dir: str) -> None:
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        self.run_command_line(
            ["cmake", "-S", str(ROOT), "-B", build_dir, *generator,
             "-DCMAKE_BUILD_TYPE=Release", "-DVEXFS_SANITIZE=OFF", "-DVEXFS_BUILD_TESTS=OFF",
             "-DVEXFS_BUILD_BENCH=OFF", "-DVEXFS_BUILD_PYTHON=ON", f"-DVEXFS_PYTHON={sys.executable}"]
        )

    @staticmethod
    def run_command_line(argv: list) -> None:
        print("vexfs:", " ".join(argv), flush=True)
        subprocess.run(argv, check=True)


setup(ext_modules=[CMakeExtension("vexfs._vexfs")], cmdclass={"build_ext": CMakeBuild})
