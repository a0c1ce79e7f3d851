"""Bad input raises ValueError (or OSError for files) with the engine's message; nothing crashes
the interpreter."""

import numpy as np
import pytest

import supple

TRIANGLE = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])


@pytest.mark.parametrize(
    "vertices, triangles, message",
    [
        (np.zeros((3, 2)), [[0, 1, 2]], r"`vertices` has shape \(3, 2\): expected an \(n, 3\) array"),
        (np.zeros(9), [[0, 1, 2]], r"`vertices` has shape \(9,\)"),
        (TRIANGLE, [0, 1, 2], r"`triangles` has shape \(3,\)"),
        (TRIANGLE, np.zeros((1, 3, 1), dtype=int), r"`triangles` has shape \(1, 3, 1\)"),
        (TRIANGLE, [[0.0, 1.0, 2.0]], r"`triangles` has dtype kind 'f': expected integers"),
        (np.where(np.eye(3) > 0, np.nan, TRIANGLE), [[0, 1, 2]], r"`vertices\[0\]` = \[NaN, 0.0, 0.0\]: expected finite numbers"),
        (np.where(np.eye(3) > 0, np.inf, TRIANGLE), [[0, 1, 2]], r"`vertices\[0\]` .*expected finite"),
        (TRIANGLE, [[0, 1, 3]], r"`triangles\[0\]` = \[0, 1, 3\]: expected vertex indices in 0..3"),
        (TRIANGLE, [[0, -1, 2]], r"`triangles\[0\]` = \[0, -1, 2\]: expected vertex indices in 0..3"),
        (TRIANGLE, [[0, 1, 2**40]], r"`triangles\[0\]`"),
        (np.zeros((0, 3)), np.zeros((0, 3), dtype=int), r"`mesh` has 0 vertices and 0 triangles"),
        ([["a", "b", "c"]], [[0, 1, 2]], r"`vertices` has dtype kind 'U'"),
    ],
)
def test_bad_arrays_raise_value_error(vertices, triangles, message):
    world = supple.World()
    with pytest.raises(ValueError, match=message):
        world.add_cloth(vertices, triangles, 1.0)
    assert world.bodies() == []  # nothing was built


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"pins": [3]}, r"`pins\[0\]` = 3: expected a vertex index in 0..3"),
        ({"pins": [-1]}, r"`pins\[0\]` = -1: expected a vertex index in 0..3"),
        ({"stretch": {"model": "pbd", "k": 1.5}}, r"`stretch.k` = 1.5: expected a value in \[0, 1\]"),
        ({"stretch": {"model": "xpbd", "compliance": -1}}, r"`stretch.compliance` = -1: expected a value >= 0"),
        ({"stretch": {"model": "pbd"}}, r"`stretch` has model \"pbd\" but no `k`"),
        ({"stretch": {"model": "fem"}}, r"`stretch.model` = \"fem\": expected \"pbd\", \"pbd_corrected\", \"xpbd\" or \"elastic\""),
        ({"stretch": {"model": "xpbd", "k": 1}}, r"`stretch.k` does not apply to model \"xpbd\""),
        ({"stretch": {"model": "xpbd", "kind": "dihedral"}}, r"`stretch` has unknown key `kind`"),
        ({"stretch": 0.5}, r"`stretch` is a float: expected a dict"),
        ({"bend": {"model": "xpbd", "kind": "twist"}}, r"`bend.kind` = \"twist\""),
        ({"name": "my flag"}, r"`name` = \"my flag\": expected a name of letters"),
        ({"damping": 2.0}, r"`damping` = 2: expected a value in \[0, 1\]"),
        ({"shape": {"stiffness": 3.0}}, r"`shape.stiffness` = 3: expected a value in \[0, 1\]"),
    ],
)
def test_bad_options_raise_value_error_naming_the_key(kwargs, message):
    world = supple.World()
    with pytest.raises(ValueError, match=message):
        world.add_cloth(TRIANGLE, [[0, 1, 2]], 1.0, **kwargs)


def test_bad_settings_bodies_and_colliders_raise_value_error(meshes):
    with pytest.raises(ValueError, match=r"`method` = \"red-black\": expected one of gauss-seidel, colored, jacobi, colored-chebyshev, colored-global"):
        supple.World(method="red-black")
    with pytest.raises(ValueError, match=r"`substeps` = 0: expected a whole number >= 1"):
        supple.World(substeps=0)
    with pytest.raises(ValueError, match=r"`dt` = -1: expected a time step in seconds > 0"):
        supple.World(dt=-1.0)
    with pytest.raises(ValueError, match=r"has 2 numbers: expected 3"):
        supple.World(gravity=(0.0, -9.81))
    world = supple.World()
    rope = world.add_rope((0, 1, 0), (1, 1, 0), 3, 0.1, name="r")
    with pytest.raises(ValueError, match=r"another body already has this name"):
        world.add_rope((0, 1, 0), (1, 1, 0), 3, 0.1, name="r")
    with pytest.raises(ValueError, match=r"`end` is the same point as `start`"):
        world.add_rope((0, 1, 0), (0, 1, 0), 3, 0.1)
    with pytest.raises(ValueError, match=r"`pins\[0\]` = \"middle\""):
        world.add_rope((0, 1, 0), (1, 1, 0), 3, 0.1, pins=["middle"])
    with pytest.raises(ValueError, match=r"`positions` has 2 vectors: expected one per vertex \(4\)"):
        world.set_positions(rope, np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"`positions\[1\]` = \[NaN"):
        world.set_positions(rope, np.where(np.arange(12).reshape(4, 3) == 3, np.nan, 0.0))
    with pytest.raises(ValueError, match=r"`particle` = 9: expected a vertex index in 0..4"):
        world.pin(rope, 9)
    with pytest.raises(ValueError, match=r"`particle` = -1"):
        world.unpin(rope, -1)
    with pytest.raises(ValueError, match=r"`diagonals` = \"diagonal\": expected \"alternating\" or \"uniform\""):
        world.add_cloth_grid((4, 4), 0.1, diagonals="diagonal")
    with pytest.raises(ValueError, match=r"`radius` = -1: expected a radius in m > 0"):
        world.add_collider("sphere", center=(0, 0, 0), radius=-1.0)
    with pytest.raises(ValueError, match=r"`radius` does not apply to a plane"):
        world.add_collider("plane", radius=1.0)
    with pytest.raises(ValueError, match=r"a sphere needs `center`"):
        world.add_collider("sphere", radius=1.0)
    with pytest.raises(ValueError, match=r"`shape` = \"cone\""):
        world.add_collider("cone")
    with pytest.raises(ValueError, match=r"`model` = \"jelly\": expected one of tets, clusters, rigid, surface"):
        world.add_soft_body(meshes / "rounded-box.obj", model="jelly")
    with pytest.raises(ValueError, match=r"`mesh` cannot be made a soft body"):
        world.add_soft_body(meshes / "disc.obj", model="surface")
    with pytest.raises(FileNotFoundError, match=r"missing.obj: cannot read the file"):
        world.add_soft_body(meshes / "missing.obj")
    assert [b.name for b in world.bodies()] == ["r"]


def test_a_bad_scene_raises_value_error_with_the_command_lines_message(tmp_path):
    scene = tmp_path / "bad.toml"
    scene.write_text('[[cloth]]\nresolution = [4, 4]\nmass = 1.0\nstretch = { model = "pbd", k = 2.0 }\n')
    with pytest.raises(ValueError) as e:
        supple.World.load(scene)
    assert str(e.value) == f"{scene}:4: `cloth[0].stretch.k` = 2: expected a value in [0, 1]"
    with pytest.raises(FileNotFoundError, match="cannot read the scene file"):
        supple.World.load(tmp_path / "missing.toml")


def test_a_blow_up_raises_simulation_error():
    # A frame of 1e30 s overflows float32 positions in the first substep.
    world = supple.World(dt=1e30)
    world.add_rope((0, 1, 0), (1, 1, 0), 3, 0.1, name="r")
    with pytest.raises(supple.SimulationError, match="body 'r' has a non-finite position at frame 1"):
        world.step(5)
    assert issubclass(supple.SimulationError, RuntimeError)


def test_isometric_bending_takes_a_flat_cloth_and_refuses_a_folded_one():
    flat = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]])
    triangles = [[0, 2, 1], [1, 2, 3]]
    rigid = {"model": "xpbd", "compliance": 0.0}
    world = supple.World()
    world.add_cloth(flat, triangles, 1.0, bend=rigid, bend_kind="isometric", pins=[0])
    world.step(2)
    assert world.stats()["stage_ms"]["isometric"] > 0
    folded = flat.copy()
    folded[3, 1] = 1.0  # one corner raised: the two triangles meet at 54.74 degrees
    world = supple.World()
    with pytest.raises(ValueError, match=r"`bend` kind = \"isometric\" needs a cloth that is flat at rest.*54\.74°"):
        world.add_cloth(folded, triangles, 1.0, bend=rigid, bend_kind="isometric")
    assert world.bodies() == []
