#!/usr/bin/env python3
"""Checks python/vexfs/_vexfs.pyi against the built module.

1. mypy's stubtest: every class, method, property and function the stubs
   declare exists in vexfs._vexfs, and every public one of the module is
   declared. Two differences are pybind11's and not the stubs' fault, and are let
   through by name: its classes have the metaclass pybind11_type, and their
   __init__ takes *args (and refuses to construct from Python).
2. Signatures, which stubtest cannot see in pybind11 functions (they have no
   __text_signature__): each function's and method's parameter names, order,
   keyword-only marker and default values, as pybind11 writes them on the first
   line of the docstring, against the stub's.
Run with PYTHONPATH at the staged package (<build>/python). Exits 1 naming each
difference.
"""
import ast
import importlib
import pathlib
import re
import subprocess
import sys

PYBIND11_ARTEFACTS = [
    re.compile(r"^vexfs\._vexfs\.\w+ is inconsistent, metaclass differs$"),
    re.compile(r"^vexfs\._vexfs\.\w+\.__init__ is inconsistent, stub does not have \*args argument \"args\"$"),
]


def split_top_level(text: str) -> list:
    """`text` split at commas outside brackets."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "[(" and 1 or 0
        depth -= ch in "])" and 1 or 0
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def default_value(text):
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    return round(value, 6) if isinstance(value, float) else value


def runtime_signature(function):
    """[(name, kw_only, default or the string '<none>')] from pybind11's docstring."""
    first = (function.__doc__ or "").splitlines()[0] if function.__doc__ else ""
    match = re.match(r"^\w+\((.*)\) -> .*$", first)
    if not match:
        return None
    params, kw_only = [], False
    for part in split_top_level(match.group(1)):
        if part == "*":
            kw_only = True
            continue
        name = part.split(":")[0].split("=")[0].strip()
        default = default_value(part.split(" = ", 1)[1]) if " = " in part else "<none>"
        params.append((name, kw_only, default))
    return params


def declared_signature(node: ast.FunctionDef):
    args = node.args
    positional = args.posonlyargs + args.args
    defaults = ["<none>"] * (len(positional) - len(args.defaults)) + [
        default_value(ast.unparse(d)) for d in args.defaults]
    params = [(a.arg, False, d) for a, d in zip(positional, defaults)]
    params += [(a.arg, True, "<none>" if d is None else default_value(ast.unparse(d)))
               for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    return params


def declared_functions(tree: ast.Module):
    """(qualified name, FunctionDef) of every function and method the .pyi declares."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not any(
                        isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                    yield f"{node.name}.{item.name}", item


def compare_signatures() -> list:
    module = importlib.import_module("vexfs._vexfs")
    stub_path = pathlib.Path(module.__file__).with_name("_vexfs.pyi")
    problems = []
    for name, node in declared_functions(ast.parse(stub_path.read_text())):
        if name.split(".")[-1].startswith("__"):
            continue  # protocol methods: pybind11 writes *args for __exit__
        target = module
        for part in name.split("."):
            target = getattr(target, part, None)
        if target is None:
            continue  # stubtest reports what is missing
        runtime = runtime_signature(target)
        if runtime is None:
            problems.append(f"{name}: no pybind11 signature in its docstring")
            continue
        declared = declared_signature(node)
        if runtime and runtime[0][0] == "self" and declared and declared[0][0] == "self":
            runtime, declared = runtime[1:], declared[1:]
        if runtime != declared:
            problems.append(f"{name}: the module has {runtime}, the .pyi declares {declared}")
    return problems


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
    problems += compare_signatures()
    if problems:
        print("check_stubs: the stubs and the module differ:", file=sys.stderr)
        for line in problems:
            print("  " + line, file=sys.stderr)
        return 1
    print(f"check_stubs: stubs match the module, signatures included ({len(lines)} pybind11 "
          "artefacts let through)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
