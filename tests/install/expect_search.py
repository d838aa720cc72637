"""Checks a `vexfs --json search` answer for the install test.

Usage: expect_search.py RESULT.json PATH        PATH is the best hit
       expect_search.py RESULT.json --absent PATH   PATH is not among the hits
"""
import json
import sys


def main() -> None:
    result_file, *rest = sys.argv[1:]
    hits = [hit["path"] for hit in json.load(open(result_file))["hits"]]
    if rest[0] == "--absent":
        if rest[1] in hits:
            sys.exit(f"{result_file}: {rest[1]} is found although it no longer says so: {hits}")
    elif not hits or hits[0] != rest[0]:
        sys.exit(f"{result_file}: the best hit should be {rest[0]}, the hits are {hits}")


if __name__ == "__main__":
    main()
