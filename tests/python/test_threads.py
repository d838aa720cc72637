"""Many threads on one Store: searches while one thread writes, and calls that
let other Python threads run (the GIL is released inside the library)."""
import sys
import threading
import time

import vexfs

WRITES = 200


def test_threads_search_while_one_writes(store):
    store.write("seed.md", "seed word alpha")
    errors: list[BaseException] = []
    done = threading.Event()
    searches = [0]

    def writer():
        try:
            for i in range(WRITES):
                store.write(f"notes/n{i:04d}.md", f"note {i} mentions the word alpha and token{i}")
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            done.set()

    def searcher():
        try:
            while not done.is_set():
                result = store.search("alpha", k=5)
                assert all(h.path.endswith(".md") for h in result)
                searches[0] += 1
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=searcher) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
        assert not t.is_alive(), "a thread is still running after 300 s"
    assert not errors, errors
    assert searches[0] > 0
    # Nothing written was lost, and every file is searchable once indexed.
    assert len(store.list("notes")) == WRITES
    for i in (0, WRITES // 2, WRITES - 1):
        assert [h.path for h in store.search(f"token{i}")] == [f"notes/n{i:04d}.md"]


def timed_call_with_a_counting_thread(call):
    """Runs call() while another thread ticks every millisecond: the call's
    (start, end) and the ticks that fell inside it."""
    ticks: list[float] = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    time.sleep(0.02)
    start = time.monotonic()
    call()
    end = time.monotonic()
    stop.set()
    counter.join()
    return start, end, [t for t in ticks if start <= t <= end]


def test_other_threads_run_during_a_long_call(store_path):
    # The call under test indexes, so no background indexer may do it first.
    store = vexfs.Store.create(store_path, background_indexing=False)
    # Indexing takes a while. If the call held the GIL, the counting thread could
    # run only in the switch interval before it; released, the thread keeps
    # running through the whole call. A machine fast enough to index the batch
    # in under 20 switch intervals gets a batch twice as large, and so on.
    files = 0
    for batch in (1200, 2400, 4800, 9600):
        for i in range(files, files + batch):
            store.write(f"f{i:05d}.txt", " ".join(f"word{i}x{j}" for j in range(80)))
        files += batch
        start, end, during = timed_call_with_a_counting_thread(store.wait_indexed)
        if end - start > 20 * sys.getswitchinterval():
            break
    call = end - start
    assert call > 20 * sys.getswitchinterval(), f"indexing {files} files took only {call:.3f} s"
    assert during and during[-1] - during[0] > call / 2, (
        f"the other thread ran for {during[-1] - during[0] if during else 0:.3f} s of a {call:.3f} s call"
    )


def test_close_while_other_threads_call_is_safe(store_path):
    s = vexfs.Store.create(store_path)
    s.write("a", "alpha")
    outcomes: list[str] = []

    def caller():
        # Calls until the store is closed under it (or a deadline passes).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                s.read("a")
                s.search("alpha")
                outcomes.append("ok")
            except vexfs.InvalidArgumentError:
                outcomes.append("closed")
                return

    threads = [threading.Thread(target=caller) for _ in range(4)]
    for t in threads:
        t.start()
    while "ok" not in outcomes:
        time.sleep(0.001)
    s.close()
    # close() returned: no call holds the store any more, so it opens again at once.
    with vexfs.Store.open(store_path) as again:
        assert again.read("a") == b"alpha"
    for t in threads:
        t.join(timeout=60)
        assert not t.is_alive()
    assert set(outcomes) == {"ok", "closed"} and outcomes.count("closed") == 4
