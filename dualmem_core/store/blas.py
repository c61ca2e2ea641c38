"""Many small vector products on one BLAS thread.

A write's neighbour search is a loop of small products (each query against the few thousand
rows its groups hold). OpenBLAS splits even those over its threads, and its threads wait for
one another: when another process holds a core (a Neo4j server merging index segments after
the last commit, or any busy neighbour), each product waits for a thread that is not running.
On 2 cores, a batch's search of 100k rows took as long idle on one thread as on two, and
beside one busy core far longer on two than on one (``benchmarks/results/neighbour-threads.txt``
has the numbers). So these loops run on one thread, and so does recall's scan of the head
coordinates at 100k (``sqlite/vectors.py``): two threads were faster alone but beside a busy
core made recall slower.

The count is process-wide (OpenBLAS has no per-thread one): the first block in lowers it, the
last one out restores it, so a recall running meanwhile in another thread also runs on one
thread for that long (slower, never wrong). It is set through OpenBLAS's own
``openblas_set_num_threads_local`` (0.3.27 on; despite the name, process-wide, and it returns
the old count), which threadpoolctl locates: threadpoolctl's own setter obeys only the first
thread that used it, so a server's worker threads could not. With no such OpenBLAS (MKL, an
older one, no threadpoolctl) the block changes nothing.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_lock = threading.Lock()  # guards everything below
_setters: list[Callable[[int], int]] | None = None  # one per loaded OpenBLAS: sets, returns the old
_inside = 0
_restore: list[tuple[Callable[[int], int], int]] = []  # (setter, the count before the first block)


def _local_setters() -> list[Callable[[int], int]]:
    """OpenBLAS's thread-count setters, found once (``_lock`` held)."""
    global _setters
    if _setters is None:
        _setters = []
        try:
            from threadpoolctl import threadpool_info
        except ImportError:
            return _setters
        for lib in threadpool_info():
            if lib.get("internal_api") != "openblas":
                continue
            try:
                setter = ctypes.CDLL(lib["filepath"]).openblas_set_num_threads_local
            except (OSError, AttributeError):  # an OpenBLAS before 0.3.27
                continue
            setter.argtypes, setter.restype = [ctypes.c_int], ctypes.c_int
            _setters.append(setter)
    return _setters


@contextmanager
def one_thread() -> Iterator[None]:
    """BLAS on one thread inside the block (nested and concurrent blocks are fine)."""
    global _inside
    with _lock:
        if _inside == 0:
            _restore[:] = [(setter, setter(1)) for setter in _local_setters()]
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                for setter, threads in _restore:
                    setter(threads)
                _restore.clear()
