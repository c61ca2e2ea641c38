"""store/blas.py: the neighbour search's loops run on one BLAS thread, and the count comes back."""

from __future__ import annotations

import threading

import pytest
from conftest import unavailable
from threadpoolctl import ThreadpoolController

from dualmem_core.store import blas
from dualmem_core.store.blas import one_thread


def _blas_threads() -> list[int]:
    return [c.num_threads for c in ThreadpoolController().lib_controllers if c.user_api == "blas"]


@pytest.fixture
def two_threads():
    """BLAS at 2 threads for the test (the CI machine's count), put back after."""
    setters = blas._local_setters()
    if not setters or not _blas_threads():
        unavailable("numpy without an OpenBLAS that has openblas_set_num_threads_local")
    before = [setter(2) for setter in setters]
    yield
    for setter, threads in zip(setters, before, strict=True):
        setter(threads)


def test_one_thread_inside_and_restored_after(two_threads) -> None:
    before = _blas_threads()
    with one_thread():
        assert set(_blas_threads()) == {1}
        with one_thread():  # nested: still one, and leaving it does not restore early
            pass
        assert set(_blas_threads()) == {1}
    assert _blas_threads() == before


def test_concurrent_blocks_restore_once_the_last_leaves(two_threads) -> None:
    before = _blas_threads()
    inside, release = threading.Event(), threading.Event()

    def hold() -> None:
        with one_thread():
            inside.set()
            release.wait(5)

    worker = threading.Thread(target=hold)
    worker.start()
    inside.wait(5)
    with one_thread():
        pass  # left first: the other block is still inside
    assert set(_blas_threads()) == {1}  # process-wide: this thread sees the worker's block
    release.set()
    worker.join()
    assert _blas_threads() == before


def test_an_error_inside_still_restores(two_threads) -> None:
    before = _blas_threads()
    with pytest.raises(ValueError):
        with one_thread():
            raise ValueError("boom")
    assert _blas_threads() == before
