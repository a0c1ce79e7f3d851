"""Stepping in one thread while others read: no crash, and every read sees a whole frame."""

import threading
import time

import numpy as np

import supple


def test_stepping_in_one_thread_while_reading_in_another_does_not_crash():
    world = supple.World()
    cloth = world.add_cloth_grid((24, 24), 0.3, pins=[(0, 0), (-1, 0)], name="sheet")
    errors = []
    done = threading.Event()

    def stepper():
        try:
            for _ in range(60):
                world.step()
        except BaseException as e:  # reported below
            errors.append(e)
        finally:
            done.set()

    def reader():
        try:
            reads = 0
            while not done.is_set() or reads == 0:
                x = world.positions("sheet")
                assert x.shape == (576, 3) and np.isfinite(x).all()
                assert world.velocities(cloth).shape == (576, 3)
                assert world.stats()["frame"] <= 60
                reads += 1
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=stepper)] + [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert world.frame == 60


def test_step_releases_the_gil():
    """While one thread is inside a long step, another thread's Python code runs."""
    world = supple.World()
    world.add_cloth_grid((48, 48), 0.3)
    ticks = []
    started = threading.Event()
    stop = threading.Event()

    def count():
        started.set()
        while not stop.is_set():
            ticks.append(time.perf_counter())

    counter = threading.Thread(target=count)
    counter.start()
    started.wait()
    t0 = time.perf_counter()
    world.step(20)
    t1 = time.perf_counter()
    stop.set()
    counter.join()
    # Ticks in the middle half of the step: none if the step held the GIL throughout.
    quarter = (t1 - t0) / 4
    inside = [t for t in ticks if t0 + quarter < t < t1 - quarter]
    assert len(inside) > 100, (len(inside), t1 - t0)
