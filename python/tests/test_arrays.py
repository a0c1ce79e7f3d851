"""Arrays in and out: shapes, dtypes, and a cloth from arrays that equals the same cloth from a
scene file bit for bit."""

import numpy as np
import pytest

import supple


def grid(n, y=1.0):
    """The vertices and triangles of an n x n grid of 1 m, in the order of Supple's grids."""
    s = np.linspace(-0.5, 0.5, n)
    x, z = np.meshgrid(s, s)
    vertices = np.stack([x.ravel(), np.full(n * n, y), z.ravel()], axis=1)
    i, j = np.meshgrid(np.arange(n - 1), np.arange(n - 1))
    a = (j * n + i).ravel()
    b, c, d = a + 1, a + n, a + n + 1
    triangles = np.concatenate([np.stack([a, b, c], 1), np.stack([b, d, c], 1)])
    return vertices, triangles


def test_positions_and_velocities_are_float32_arrays_of_n_by_3():
    world = supple.World()
    cloth = world.add_cloth_grid((5, 4), 0.1)
    rope = world.add_rope((0, 1, 0), (1, 1, 0), 6, 0.1)
    for body, n in [(cloth, 20), (rope, 7), ("cloth0", 20), ("rope0", 7)]:
        for array in (world.positions(body), world.velocities(body), world.surface(body)):
            assert array.shape == (n, 3) and array.dtype == np.float32
            assert array.flags["C_CONTIGUOUS"] and array.flags["WRITEABLE"]
    t = world.triangles(cloth)
    assert t.shape == (2 * 4 * 3, 3) and t.dtype == np.uint32
    assert world.triangles(rope).shape == (0, 3)
    # A copy: writing to it changes nothing in the world.
    x = world.positions(cloth)
    x[:] = 7.0
    assert not np.any(world.positions(cloth) == 7.0)


def test_bodies_are_found_by_handle_and_by_name():
    world = supple.World()
    a = world.add_cloth_grid((3, 3), 0.1, name="flag")
    b = world.add_rope((0, 1, 0), (1, 1, 0), 2, 0.1)
    assert (a.name, a.index, b.name, b.index) == ("flag", 0, "rope0", 1)
    assert world.body("flag") == a and world.bodies() == [a, b]
    assert np.array_equal(world.positions("flag"), world.positions(a))
    with pytest.raises(ValueError, match="no body is named 'sail'"):
        world.positions("sail")
    other = supple.World()
    other.add_cloth_grid((3, 3), 0.1)
    with pytest.raises(ValueError, match="another world"):
        world.positions(other.bodies()[0])
    with pytest.raises(TypeError):
        world.positions(3)


def test_a_cloth_from_arrays_equals_the_same_cloth_from_a_scene_file_bit_for_bit(tmp_path):
    vertices, triangles = grid(12)
    vertices32 = vertices.astype(np.float32)
    with open(tmp_path / "sheet.obj", "w") as f:
        for v in vertices32:
            f.write("v {} {} {}\n".format(*(repr(float(c)) for c in v)))
        for t in triangles + 1:
            f.write("f {} {} {}\n".format(*t))
    scene = tmp_path / "sheet.toml"
    scene.write_text(
        """
[solver]
substeps = 8
iterations = 6
[[cloth]]
name = "sheet"
mesh = "sheet.obj"
mass = 0.3
pin = [0, 11]
stretch = { model = "xpbd", compliance = 1e-6 }
bend = { model = "xpbd", compliance = 0.5, kind = "cross-distance" }
damping = 0.01
[[collider]]
shape = "sphere"
center = [0.1, 0.2, 0.0]
radius = 0.5
friction = 0.4
"""
    )
    loaded = supple.World.load(scene)
    built = supple.World(substeps=8, iterations=6)
    sheet = built.add_cloth(
        vertices,  # float64: converted to float32 as the scene's numbers are
        triangles,
        0.3,
        name="sheet",
        pins=[0, 11],
        stretch={"model": "xpbd", "compliance": 1e-6},
        bend=supple.Xpbd(compliance=0.5),
        bend_kind="cross-distance",
        damping=0.01,
    )
    built.add_collider("sphere", center=(0.1, 0.2, 0.0), radius=0.5, friction=0.4)
    assert np.array_equal(built.positions(sheet), loaded.positions("sheet"))
    loaded.step(40)
    built.step(40)
    a, b = built.positions(sheet), loaded.positions("sheet")
    assert a.tobytes() == b.tobytes()
    assert built.velocities(sheet).tobytes() == loaded.velocities("sheet").tobytes()
    assert np.array_equal(built.triangles(sheet), triangles)


@pytest.mark.parametrize("diagonals", ["alternating", "uniform"])
def test_a_grid_cloth_equals_the_scene_files_grid_bit_for_bit(tmp_path, diagonals):
    scene = tmp_path / "grid.toml"
    scene.write_text(
        f"""
[[cloth]]
resolution = [9, 7]
size = [0.8, 0.6]
center = [0.0, 1.0, 0.2]
rotation = [30.0, 0.0, 10.0]
diagonals = "{diagonals}"
mass = 0.2
pin = [[0, 0], [-1, 0]]
shear = {{ model = "pbd", k = 0.8 }}
"""
    )
    loaded = supple.World.load(scene)
    built = supple.World()
    cloth = built.add_cloth_grid(
        (9, 7), 0.2, size=(0.8, 0.6), center=(0.0, 1.0, 0.2), rotation=(30.0, 0.0, 10.0),
        diagonals=diagonals, pins=[(0, 0), (-1, 0)], shear={"model": "pbd", "k": 0.8},
    )
    loaded.step(30)
    built.step(30)
    assert built.positions(cloth).tobytes() == loaded.positions("cloth0").tobytes()
    assert np.array_equal(built.triangles(cloth), loaded.triangles("cloth0"))


def test_set_positions_pin_and_unpin():
    world = supple.World(gravity=(0, 0, 0))
    rope = world.add_rope((0, 1, 0), (1, 1, 0), 4, 0.5)
    x = world.positions(rope) + np.array([0.0, 1.0, 0.0], dtype=np.float32)
    world.set_positions(rope, x)
    assert np.array_equal(world.positions(rope), x)
    world.set_velocities(rope, np.tile([0.0, 0.0, 1.0], (5, 1)))
    world.pin(rope, 0)
    world.step(10)
    assert np.array_equal(world.positions(rope)[0], x[0])  # a pinned particle stays
    assert world.velocities(rope)[0].tolist() == [0.0, 0.0, 0.0]
    world.unpin(rope, 0)
    world.set_velocities(rope, np.tile([0.0, 0.0, 1.0], (5, 1)))
    world.step(10)
    assert world.positions(rope)[0, 2] > x[0, 2] + 0.1


def test_a_kinematic_collider_moved_from_python_pushes_a_soft_body(meshes):
    world = supple.World()
    jelly = world.add_soft_body(
        meshes / "rounded-box.obj", 1.0, fit=0.3, center=(0.0, 0.2, 0.0), resolution=5
    )
    world.add_collider("plane")
    pusher = world.add_collider("box", center=(-0.5, 0.2, 0.0), half_extents=(0.05, 0.2, 0.4))
    start = world.positions(jelly)[:, 0].mean()
    for frame in range(1, 61):
        target = -0.5 + 0.8 * frame / 60
        world.move_collider(pusher, (target - world.collider_center(pusher)[0], 0.0, 0.0))
        world.step()
    assert abs(world.collider_center(pusher)[0] - 0.3) < 1e-4
    assert world.positions(jelly)[:, 0].mean() > start + 0.1


def test_a_soft_body_from_arrays_equals_the_one_from_its_file(meshes):
    text = (meshes / "rounded-box.obj").read_text().splitlines()
    v = np.array([[float(c) for c in l.split()[1:4]] for l in text if l.startswith("v ")])
    f = np.array(
        [[int(c.split("/")[0]) - 1 for c in l.split()[1:4]] for l in text if l.startswith("f ")]
    )
    kinds = {}
    for name, mesh in [("file", meshes / "rounded-box.obj"), ("arrays", (v, f))]:
        world = supple.World()
        body = world.add_soft_body(mesh, 1.0, model="surface", fit=0.3, center=(0, 0.5, 0))
        world.step(5)
        kinds[name] = world.positions(body)
    assert kinds["file"].tobytes() == kinds["arrays"].tobytes()


def test_stats_have_the_reports_fields(tmp_path):
    world = supple.World(dt=0.02)
    world.add_cloth_grid((4, 4), 0.1, name="sheet")
    world.step(3)
    stats = world.stats()
    assert set(stats) == {
        "frame", "time", "step_ms", "stage_ms", "kinetic_energy", "max_strain", "mean_strain",
        "max_penetration", "torn_edges", "bodies",
    }
    assert 0 < sum(stats["stage_ms"].values()) and "dihedral" in stats["stage_ms"]
    assert stats["frame"] == 3 == world.frame and abs(stats["time"] - 0.06) < 1e-6
    assert stats["step_ms"] > 0 and stats["kinetic_energy"] > 0
    assert stats["bodies"][0]["name"] == "sheet"
    world.export_obj(tmp_path / "out")
    obj = (tmp_path / "out" / "sheet_00003.obj").read_text()
    assert obj.count("\nv ") + obj.startswith("v ") == 16


def test_colliders_of_a_scene_file_have_handles_by_name(tmp_path):
    scene = tmp_path / "ball.toml"
    scene.write_text(
        '[[collider]]\nshape = "plane"\n\n'
        '[[collider]]\nname = "ball"\nshape = "sphere"\ncenter = [0.0, 0.5, 0.0]\nradius = 0.2\n'
    )
    world = supple.World.load(str(scene))
    plane, ball = world.colliders()
    assert world.collider("ball") == ball and ball.index == 1 and plane.index == 0
    world.move_collider(ball, (0.3, 0.0, 0.0))
    world.step()
    assert np.allclose(world.collider_center(ball), (0.3, 0.5, 0.0), atol=1e-5)
    with pytest.raises(ValueError, match="no collider is called 'hoop'"):
        world.collider("hoop")
    added = world.add_collider("sphere", name="hoop", center=(0, 2, 0), radius=0.1)
    assert world.collider("hoop") == added
