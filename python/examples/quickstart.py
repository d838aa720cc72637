"""The Python quick start of docs/agents.md, run and type-checked (mypy --strict)
by the test suite: an agent's memory written, recalled by meaning and by
words, snapshotted before a re-plan, compared and restored.

Usage: python quickstart.py STORE_DIR
"""
import sys

import vexfs


def main(path: str) -> None:
    with vexfs.Store.create(path) as memory:
        memory.write("notes/parser.md", "The parser fails on nested brackets; use a stack.",
                     meta={"topic": "parser"})
        memory.write("notes/deploy.md", "Deploy on Friday, after the security review.")

        # Recall: what did I learn about the parser?
        for hit in memory.search("why does the parser fail", k=3):
            print(f"{hit.path} [{hit.offset}+{hit.length}] {hit.score:.3f}: {hit.snippet}")

        # Snapshot before re-planning, change the plan, see what changed.
        memory.snapshot("before-replan", "plan A")
        memory.write("notes/deploy.md", "Deploy on Monday instead.")
        for change in memory.diff("before-replan"):
            print(change.kind, change.path)

        # What did I know then? Read and search the snapshot, then go back to it.
        print(memory.read_text("notes/deploy.md", at="before-replan"))
        print([h.path for h in memory.search("Friday", at="before-replan")])
        memory.restore("before-replan")

        try:
            memory.read("notes/missing.md")
        except vexfs.NotFoundError as e:
            print("not found:", e.message)


if __name__ == "__main__":
    main(sys.argv[1])
