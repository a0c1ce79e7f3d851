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


def test_pins_carried_by_a_moving_collider_follow_it():
    # A rope's start and a cloth's top corners pinned to a box moving at 0.5 m/s along x: after
    # 60 frames (1 s) they have moved with it by 0.5 m.
    world = supple.World(dt=1 / 60)
    box = world.add_collider(
        "box", center=(0.0, 1.5, 0.0), half_extents=(0.1, 0.1, 0.1), velocity=(0.5, 0.0, 0.0)
    )
    rope = world.add_rope((0.0, 1.4, 0.0), (0.0, 0.6, 0.0), 8, 0.1, pins=["start"], pin_collider=box)
    cloth = world.add_cloth_grid(
        (5, 5), 0.1, size=(0.2, 0.2), center=(0.0, 1.3, 0.1), orientation="vertical",
        pins=[(0, 0), (-1, 0)], pin_collider=box,
    )
    start = world.positions(rope)[0].copy()
    corners = world.positions(cloth)[[0, 4]].copy()
    world.step(60)
    moved = np.array([0.5, 0.0, 0.0])
    assert np.allclose(world.positions(rope)[0], start + moved, atol=1e-4)
    assert np.allclose(world.positions(cloth)[[0, 4]], corners + moved, atol=1e-4)


def test_a_cloth_pulled_past_its_tear_strain_tears():
    # A curtain pinned along its top, pulled down hard by a gravity of 200 m/s^2 (2 N at the top):
    # at 5e-2 m/N its top edges would stretch about 90%; with tear=0.2 they tear and it
    # gains particles; without, it only stretches.
    counts = {}
    for tear in (None, 0.2):
        world = supple.World(gravity=(0.0, -200.0, 0.0))
        cloth = world.add_cloth_grid(
            (10, 10), 0.1, orientation="vertical", center=(0.0, 2.0, 0.0),
            pins=[(i, 0) for i in range(10)],
            stretch={"model": "xpbd", "compliance": 5e-2}, tear=tear,
        )
        world.step(30)
        counts[tear] = len(world.positions(cloth))
        if tear is not None:
            assert world.stats()["torn_edges"] > 0
    assert counts[None] == 100 and counts[0.2] > 100, counts


def test_gusts_from_python_repeat_for_a_seed_and_change_with_it():
    # A flag in gusts (the scene's `wind = { mean, amplitude, period, wavelength, seed }` as a
    # dict): the same seed gives the same bits, another seed another flight, and steady wind
    # another again.
    def flag(wind):
        world = supple.World(wind=wind)
        cloth = world.add_cloth_grid(
            (12, 8), 0.1, size=(0.6, 0.4), orientation="vertical", center=(0.0, 2.0, 0.0),
            pins=[(0, j) for j in range(8)], drag=0.6,
        )
        world.step(60)
        return world.positions(cloth)

    gusts = {"mean": (4.0, 0.0, 1.0), "amplitude": 3.0, "period": 0.5, "wavelength": 2.0}
    a = flag({**gusts, "seed": 7})
    assert np.array_equal(a, flag({**gusts, "seed": 7}))
    assert not np.allclose(a, flag({**gusts, "seed": 8}), atol=1e-3)
    assert not np.allclose(a, flag((4.0, 0.0, 1.0)), atol=1e-3)
    with pytest.raises(ValueError, match="period"):
        supple.World(wind={"mean": (4.0, 0.0, 0.0), "amplitude": 3.0, "wavelength": 2.0})
    with pytest.raises(ValueError, match="wind"):
        supple.World(wind={**gusts, "gusty": True})


def test_a_stretch_limit_keeps_a_compliant_rope_within_it():
    def longest_stretch(**limit):
        world = supple.World(dt=1 / 60, substeps=20, iterations=2)
        rope = world.add_rope(
            (0.0, 2.0, 0.0),
            (1.0, 2.0, 0.0),
            20,
            1.0,
            pins=["start"],
            stretch=supple.Xpbd(compliance=1e-3),
            **limit,
        )
        worst = 0.0
        for _ in range(120):
            world.step()
            x = world.positions(rope).astype(np.float64)
            worst = max(worst, np.linalg.norm(np.diff(x, axis=0), axis=1).max() / 0.05 - 1.0)
        return worst

    assert longest_stretch() > 0.1
    # The limit, the projection's tolerance (0.1% of the length) and f32 rounding.
    assert longest_stretch(stretch_limit=0.05) <= 1.05 * 1.001 - 1.0 + 1e-5
    with pytest.raises(ValueError, match="stretch_limit"):
        supple.World().add_rope((0, 0, 0), (1, 0, 0), 4, 1.0, stretch_limit=-1.0)


def chain_energy_kept(shake):
    """The share of its energy above its lowest hanging state that an undamped rigid chain of
    20 links (1 m, 0.21 kg, pinned at one end, released horizontally) keeps over 10 s at 100
    substeps of 2 iterations."""
    world = supple.World(substeps=100, iterations=2, shake=shake)
    assert world.settings["shake"] is shake
    rope = world.add_rope((0.0, 2.0, 0.0), (1.0, 2.0, 0.0), 20, 0.21, pins=["start"])
    m = 0.21 / 21

    def energy():
        x, v = world.positions(rope)[1:], world.velocities(rope)[1:]
        return m * (0.5 * (v.astype(np.float64) ** 2).sum() + G * x[:, 1].sum())

    lowest = m * G * sum(2.0 - i / 20 for i in range(1, 21))
    e0 = energy() - lowest
    world.step(600)
    return (energy() - lowest) / e0


def test_shake_keeps_a_swinging_chains_energy_where_the_default_projection_loses_half():
    # docs/performance.md, "Energy": 95.6% and 41.8%, measured through the Rust API.
    assert chain_energy_kept(True) > 0.9
    assert chain_energy_kept(False) < 0.6


def test_colored_global_holds_a_stiff_plate_at_its_statics():
    # A plate 0.5 m across and 0.1 kg, its first two rows clamped, elastic isometric bending
    # D = 1 N m: q L^4 / (8 D) = 3.07 cm. The global step of colored-global holds its tip at
    # 2.92 cm at 33 x 33 particles (docs/performance.md); Gauss-Seidel's 200 sweeps a frame
    # leave it hanging over ten times as far.
    n, reference = 33, 0.1 * G / 0.25 * 0.5**4 / 8.0

    def tip_drop(method):
        world = supple.World(substeps=20, iterations=10, method=method, damping=5.0)
        pins = [(i, j) for j in (0, 1) for i in range(n)]
        plate = world.add_cloth_grid(
            (n, n), 0.1, size=(0.5, 0.5), center=(0.0, 1.0, 0.0), pins=pins,
            bend={"model": "elastic", "stiffness": 1.0}, bend_kind="isometric",
        )
        rest = world.positions(plate)[-n:, 1].mean()
        world.step(150)
        return rest - world.positions(plate)[-n:, 1].mean()

    held = tip_drop("colored-global")
    assert abs(held - reference) < 0.1 * reference, (held, reference)
    assert tip_drop("gauss-seidel") > 2.0 * held
