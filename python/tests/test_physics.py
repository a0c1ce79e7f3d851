"""Physics through the Python API, checked against analytic values."""

import numpy as np
import pytest

import supple

G = 9.81


def test_a_free_rope_falls_as_y0_minus_g_t_squared_over_two():
    world = supple.World(dt=0.01, substeps=10, iterations=5)
    rope = world.add_rope((0.0, 2.0, 0.0), (1.0, 2.0, 0.0), 10, 1.0)
    world.step(100)  # 1 s
    fallen = 2.0 - world.positions(rope)[:, 1].mean()
    analytic = 0.5 * G * 1.0**2
    assert abs(fallen - analytic) / analytic < 0.01, (fallen, analytic)
    # Every particle moves at -g t, and the rigid segments keep their length.
    v = world.velocities(rope)
    np.testing.assert_allclose(v[:, 1], -G * 1.0, rtol=1e-3)
    assert world.stats()["max_strain"] < 1e-4


def test_a_hanging_xpbd_rope_settles_to_hookes_law():
    segments, mass, length, compliance = 20, 0.21, 1.0, 0.005
    world = supple.World(dt=1 / 60, substeps=20, iterations=10, damping=2.0)
    rope = world.add_rope(
        (0.0, 2.0, 0.0),
        (0.0, 2.0 - length, 0.0),
        segments,
        mass,
        pins=["start"],
        stretch=supple.Xpbd(compliance=compliance),
    )
    world.step(600)
    x = world.positions(rope).astype(np.float64)
    extension = np.linalg.norm(np.diff(x, axis=0), axis=1) - length / segments
    m = mass / (segments + 1)
    # Segment k (from the top) carries the segments - k particles below it: e = alpha * F.
    analytic = compliance * (segments - np.arange(segments)) * m * G
    np.testing.assert_allclose(extension, analytic, rtol=0.02)


def test_stiffness_as_a_dict_equals_the_class():
    def hang(stretch):
        world = supple.World()
        rope = world.add_rope((0, 1, 0), (1, 1, 0), 8, 0.5, pins=["start"], stretch=stretch)
        world.step(20)
        return world.positions(rope)

    by_dict = hang({"model": "xpbd", "compliance": 1e-3, "damping": 0.01})
    by_class = hang(supple.Xpbd(compliance=1e-3, damping=0.01))
    assert np.array_equal(by_dict, by_class)
    assert np.array_equal(hang({"model": "pbd", "k": 0.5}), hang(supple.Pbd(0.5)))
    assert not np.array_equal(hang(supple.Pbd(0.5)), hang(supple.PbdCorrected(0.5)))


def test_a_cloth_dropped_on_a_sphere_stays_outside_it():
    world = supple.World()
    cloth = world.add_cloth_grid((16, 16), 0.2, center=(0.0, 0.6, 0.0))
    world.add_collider("sphere", center=(0.0, 0.0, 0.0), radius=0.4)
    world.step(90)
    distance = np.linalg.norm(world.positions(cloth), axis=1)
    assert distance.min() > 0.4 - 0.01  # no particle deeper than its thickness
    assert world.stats()["max_penetration"] < 0.01


def test_long_range_attachments_keep_a_soft_rope_within_its_length_of_the_pin():
    # A stretchy rope (5e-3 m/N) hangs 1 m from its pinned start: plain, it stretches by
    # compliance x the weight below each segment (about 1 cm in all); with long_range = True
    # every free particle stays within its rest distance along the rope from the pin.
    ends = {}
    for long_range in (False, True):
        world = supple.World(dt=1 / 60, substeps=10, iterations=4, damping=2.0)
        rope = world.add_rope(
            (0.0, 2.0, 0.0),
            (0.0, 1.0, 0.0),
            20,
            0.21,
            pins=["start"],
            stretch={"model": "xpbd", "compliance": 0.005},
            long_range=long_range,
        )
        world.step(120)
        x = world.positions(rope).astype(np.float64)
        ends[long_range] = np.linalg.norm(x - x[0], axis=1)
    rest = np.linspace(0.0, 1.0, 21)
    assert ends[False][-1] > 1.005, ends[False][-1]
    assert np.all(ends[True] <= rest * (1 + 1e-4) + 1e-6), (ends[True] - rest).max()


def test_lift_is_accepted_and_checked_like_drag():
    world = supple.World()
    world.add_cloth_grid((4, 4), 0.1, drag=0.6, lift=0.3, long_range=True, pins=[(0, 0)])
    world.step()
    for bad in (float("nan"), -1.0):
        with pytest.raises(ValueError, match="lift"):
            world.add_cloth_grid((4, 4), 0.1, lift=bad)
