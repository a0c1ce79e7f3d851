"""Supple: position-based dynamics (PBD/XPBD) for cloth, rope and soft bodies.

Units are metres, seconds and kilograms; y is up. Build a `World` with its `add_*` methods (or
`World.load("scene.toml")`), `step` it and read `positions` as NumPy arrays. Stiffness is a dict
with the keys of a scene file (`{"model": "xpbd", "compliance": 1e-6}`) or one of `Pbd`,
`PbdCorrected`, `Xpbd`. Bad input raises `ValueError` with the engine's message, which names the
argument and what was expected.
"""

import os
from typing import Any, Literal, Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str

Vec3 = Union[Sequence[float], npt.NDArray[np.floating]]
"""A point or vector: three numbers."""
Points = npt.ArrayLike
"""An (n, 3) array of floats (converted to float32)."""
Indices = npt.ArrayLike
"""An (m, 3) array of integers."""
StiffnessDict = TypedDict(
    "StiffnessDict",
    {
        "model": str,
        "k": float,
        "compliance": float,
        "stiffness": float,
        "damping": float,
        "youngs": float,
        "poisson": float,
        "kind": str,
    },
    total=False,
)
Stiffness = Union["Pbd", "PbdCorrected", "Xpbd", StiffnessDict]
"""A stiffness: `{"model": "pbd", "k": 0.9}`, `{"model": "pbd_corrected", "k": 0.9}`,
`{"model": "xpbd", "compliance": 1e-6, "damping": 0.0}` (compliance in m/N, 0 is rigid),
`{"model": "elastic", "stiffness": 500.0}` (a physical modulus: EA in N for rope stretch, E*t in
N/m for cloth stretch and shear, D in N*m for cloth dihedral bending),
`{"model": "elastic", "youngs": 1e5, "poisson": 0.3}` (a soft body's tet `volume`: Young's modulus
in Pa and Poisson ratio, Neo-Hookean tets), or the classes of the first three. Cloth `bend` also takes `"kind"`: "dihedral", "cross-distance" or "isometric" (flat cloth only)."""
ShapeMaterial = TypedDict(
    "ShapeMaterial",
    {"stiffness": float, "beta": float, "yield": float, "creep": float, "max": float},
    total=False,
)
"""A shape-matching material: the keys of a scene's `shape` table."""
Body = Union["BodyHandle", str]
"""A body: the handle an `add_*` method returned, or the body's name."""
Mesh = Union[str, os.PathLike, Tuple[Points, Indices]]
"""A mesh: a path to an OBJ file, or a (vertices, triangles) pair of arrays."""
Method = Literal["gauss-seidel", "colored", "jacobi", "colored-chebyshev", "colored-global"]

class SimulationError(RuntimeError):
    """A body got a non-finite position: the simulation blew up (the message names the body
    and the frame)."""

class Pbd:
    """PBD stiffness `k` in [0, 1]: the correction is scaled by `k` every iteration."""

    k: float
    def __init__(self, k: float) -> None: ...

class PbdCorrected:
    """PBD stiffness `k` in [0, 1], corrected for the iteration count: k' = 1 - (1 - k)^(1/n)."""

    k: float
    def __init__(self, k: float) -> None: ...

class Xpbd:
    """XPBD compliance (inverse stiffness, m/N for a distance; 0 is rigid) and constraint
    damping (s)."""

    compliance: float
    damping: float
    def __init__(self, compliance: float = 0.0, damping: float = 0.0) -> None: ...

class BodyHandle:
    """A body of a world, as returned by its `add_*` methods."""

    @property
    def index(self) -> int:
        """The body's index in its world, in the order the bodies were added."""
    @property
    def name(self) -> str:
        """The body's name (given, or `<kind><n>` such as "cloth0")."""

class ColliderHandle:
    """A collider of a world, as returned by `add_collider`."""

    @property
    def index(self) -> int:
        """The collider's index in its world, in the order the colliders were added."""

class BodyStats(TypedDict):
    name: str
    volume: float
    rest_volume: float
    center_of_mass: list[float]

class FrameStats(TypedDict):
    """A frame of the JSON report (docs/outputs.md, "The report")."""

    frame: int
    time: float
    step_ms: float
    stage_ms: dict[str, float]
    kinetic_energy: float
    max_strain: float
    mean_strain: float
    max_penetration: float
    torn_edges: int
    bodies: list[BodyStats]

class World:
    """A simulation: bodies, colliders and solver settings, advanced frame by frame.

    Every method may be called from any thread; `step` runs without the GIL, and a call made
    while another thread steps waits for that step to end.
    """

    def __init__(
        self,
        *,
        dt: Optional[float] = None,
        substeps: Optional[int] = None,
        iterations: Optional[int] = None,
        method: Optional[Method] = None,
        gravity: Optional[Vec3] = None,
        damping: Optional[float] = None,
        wind: Optional[Union[Vec3, dict[str, Any]]] = None,
        max_displacement: Optional[float] = None,
        max_strain: Optional[float] = None,
        shake: Optional[bool] = None,
    ) -> None:
        """An empty world with these solver settings (the keys of a scene's `[solver]` table;
        None takes its default: dt 1/60 s, 10 substeps, 10 iterations, "gauss-seidel",
        gravity (0, -9.81, 0) m/s^2, no damping, no wind, max_strain 10: a run stretched past
        1000% stops with SimulationError; shake False: distance constraints projected along
        their current direction, not SHAKE's start direction, which keeps a swinging chain's
        energy). `wind` is a vector (m/s), or a dict of the scene's
        gust keys: {"mean": (x, y, z), "amplitude", "period", "wavelength", "seed"}."""
    @staticmethod
    def load(path: Union[str, os.PathLike]) -> "World":
        """The world of a scene file (TOML). A bad scene raises ValueError with the command
        line's message (file:line: `key` what was expected); a missing file FileNotFoundError."""
    def add_cloth(
        self,
        vertices: Points,
        triangles: Indices,
        mass: float,
        *,
        name: Optional[str] = None,
        pins: Optional[Sequence[int]] = None,
        stretch: Optional[Stiffness] = None,
        bend: Optional[Stiffness] = None,
        bend_kind: Optional[Literal["dihedral", "cross-distance", "isometric"]] = None,
        thickness: float = 0.01,
        damping: float = 0.0,
        drag: float = 0.0,
        lift: float = 0.0,
        long_range: bool = False,
        self_collision: bool = False,
        shape: Optional[ShapeMaterial] = None,
        tear: Optional[float] = None,
        stretch_limit: Optional[float] = None,
        pin_collider: Optional[ColliderHandle] = None,
        weld: Optional[float] = None,
    ) -> BodyHandle:
        """Adds a cloth: `triangles` (int, (m, 3)) over `vertices` (float, (n, 3), m), `mass` kg
        spread equally, `pins` vertex indices pinned; a stretch constraint on every triangle
        edge (default rigid), bending on every pair of triangles sharing an edge when `bend` is
        given (`bend_kind`, default "dihedral"); `thickness` is the collision distance (m),
        `damping` Mueller's damping in [0, 1], `drag` and `lift` the air coefficients
        (kg/m^3); `long_range` tethers every free particle to its nearest pin (Kim et al.
        2012); `tear` is the strain past which an edge tears (the cloth must then be the
        world's last body); `stretch_limit` keeps every edge at most that fraction longer than
        its rest length (after the iterations of each substep); `pin_collider` carries the pins
        on that collider's motion. Vertices closer than `weld` m share a particle (default
        0.001 times the median edge; 0 welds none) and sliver triangles are collapsed;
        positions, velocities and pins stay per vertex, in the given order."""
    def add_cloth_grid(
        self,
        resolution: Tuple[int, int],
        mass: float,
        *,
        size: Tuple[float, float] = (1.0, 1.0),
        center: Optional[Vec3] = None,
        orientation: Literal["horizontal", "vertical"] = "horizontal",
        diagonals: Literal["alternating", "uniform"] = "alternating",
        rotation: Optional[Vec3] = None,
        pins: Optional[Sequence[Tuple[int, int]]] = None,
        name: Optional[str] = None,
        stretch: Optional[Stiffness] = None,
        shear: Optional[Stiffness] = None,
        bend: Optional[Stiffness] = None,
        bend_kind: Optional[Literal["dihedral", "cross-distance", "isometric"]] = None,
        thickness: float = 0.01,
        damping: float = 0.0,
        drag: float = 0.0,
        lift: float = 0.0,
        long_range: bool = False,
        self_collision: bool = False,
        shape: Optional[ShapeMaterial] = None,
        tear: Optional[float] = None,
        stretch_limit: Optional[float] = None,
        pin_collider: Optional[ColliderHandle] = None,
    ) -> BodyHandle:
        """Adds a grid cloth of `resolution = (nx, nz)` particles spanning `size` m around
        `center`, in the XZ plane ("horizontal") or the XY plane ("vertical"), turned by
        `rotation` (degrees about x, y, z). Particle (i, j) has index j * nx + i; `pins` holds
        (i, j) pairs (negative counts from the end). `diagonals` splits the cells like a
        checkerboard ("alternating") or all the same way ("uniform", the triangulation of
        workload W). `shear` is the stiffness of the cell diagonals; the other keys as for
        `add_cloth`."""
    def add_rope(
        self,
        start: Vec3,
        end: Vec3,
        segments: int,
        mass: float,
        *,
        name: Optional[str] = None,
        pins: Optional[Sequence[Literal["start", "end"]]] = None,
        stretch: Optional[Stiffness] = None,
        bend: Optional[Stiffness] = None,
        thickness: float = 0.01,
        damping: float = 0.0,
        long_range: bool = False,
        shape: Optional[ShapeMaterial] = None,
        stretch_limit: Optional[float] = None,
        pin_collider: Optional[ColliderHandle] = None,
    ) -> BodyHandle:
        """Adds a straight rope of `segments` segments (segments + 1 particles) and `mass` kg
        from `start` to `end` (m); `long_range` tethers every free particle to its nearest
        pinned end; `stretch_limit` keeps every segment at most that fraction longer than its
        rest length."""
    def add_soft_body(
        self,
        mesh: Mesh,
        mass: float = 1.0,
        *,
        model: Literal["tets", "clusters", "rigid", "surface"] = "tets",
        name: Optional[str] = None,
        resolution: Optional[int] = None,
        edge: Optional[Stiffness] = None,
        volume: Optional[Stiffness] = None,
        bend: Optional[Stiffness] = None,
        pressure: Optional[float] = None,
        shape: Optional[ShapeMaterial] = None,
        thickness: float = 0.01,
        damping: float = 0.0,
        center: Optional[Vec3] = None,
        rotation: Optional[Vec3] = None,
        fit: Optional[float] = None,
        scale: Optional[float] = None,
    ) -> BodyHandle:
        """Adds a soft body made from `mesh` (cleaned), scaled by `scale` or to `fit` m along
        its longest side, turned by `rotation` (degrees about x, y, z) and centred on `center`;
        the keys are those of a scene's `[[soft_body]]` table (docs/scene-files.md)."""
    def add_collider(
        self,
        shape: Literal["plane", "sphere", "box", "capsule", "mesh"],
        *,
        name: Optional[str] = None,
        point: Optional[Vec3] = None,
        normal: Optional[Vec3] = None,
        center: Optional[Vec3] = None,
        radius: Optional[float] = None,
        half_extents: Optional[Vec3] = None,
        rotation: Optional[Vec3] = None,
        a: Optional[Vec3] = None,
        b: Optional[Vec3] = None,
        mesh: Optional[Mesh] = None,
        position: Optional[Vec3] = None,
        scale: Optional[float] = None,
        friction: Optional[float] = None,
        static_friction: Optional[float] = None,
        kinetic_friction: Optional[float] = None,
        restitution: float = 0.0,
        stiffness: Optional[Stiffness] = None,
        velocity: Optional[Vec3] = None,
        spin: Optional[Vec3] = None,
    ) -> ColliderHandle:
        """Adds a collider with the keys of a scene's `[[collider]]` table that apply to its
        shape (plane: point, normal; sphere: center, radius; box: center, half_extents,
        rotation; capsule: a, b, radius; mesh: mesh, position, scale, rotation); `velocity`
        (m/s) and `spin` (rad/s) give it a scripted motion."""
    def step(self, frames: int = 1) -> None:
        """Advances `frames` frames without holding the GIL. Raises SimulationError if a body
        blows up."""
    def positions(self, body: Body) -> npt.NDArray[np.float32]:
        """Positions of the body's vertices (a mesh cloth's in the given order), m: a new (n, 3) float32 array."""
    def velocities(self, body: Body) -> npt.NDArray[np.float32]:
        """Velocities of the body's vertices, m/s: a new (n, 3) float32 array."""
    def surface(self, body: Body) -> npt.NDArray[np.float32]:
        """Vertices of the body's rendered surface, m (a soft body's skinned surface, the
        particles otherwise): a new (k, 3) float32 array."""
    def triangles(self, body: Body) -> npt.NDArray[np.uint32]:
        """Triangles of the body's surface, indices into `surface(body)`: (m, 3) uint32."""
    def set_positions(self, body: Body, positions: Points) -> None:
        """Moves the body's vertices to `positions` ((n, 3), m), keeping their velocities."""
    def set_velocities(self, body: Body, velocities: Points) -> None:
        """Sets the velocities of the body's vertices ((n, 3), m/s)."""
    def pin(self, body: Body, particle: int) -> None:
        """Pins a vertex of the body (0-based, as `positions` orders them) where it is."""
    def unpin(self, body: Body, particle: int) -> None:
        """Frees a pinned particle of the body, giving back its mass."""
    def move_collider(
        self, collider: ColliderHandle, translation: Vec3, rotation: Optional[Vec3] = None
    ) -> None:
        """Moves a collider during the next frame by `translation` (m) and turns it by
        `rotation` (degrees about x, y, z) about its centre, at constant velocity, so that
        what it touches is pushed and dragged; call it every frame to drive a collider."""
    def set_collider_motion(
        self,
        collider: ColliderHandle,
        velocity: Optional[Vec3] = None,
        spin: Optional[Vec3] = None,
    ) -> None:
        """Sets the scripted motion of a collider from now on (m/s, rad/s; zero: static)."""
    def collider_center(self, collider: ColliderHandle) -> Tuple[float, float, float]:
        """The collider's centre now, m."""
    def body(self, name: str) -> BodyHandle:
        """The handle of the body called `name` (ValueError if there is none)."""
    def bodies(self) -> list[BodyHandle]:
        """Handles of every body, in the order they were added."""
    def collider(self, name: str) -> ColliderHandle:
        """The handle of the collider called `name`, a scene's `name` key or `add_collider`'s
        (ValueError if there is none)."""
    def colliders(self) -> list[ColliderHandle]:
        """Handles of every collider, in the order they were added (a scene file's order)."""
    def stats(self) -> FrameStats:
        """Statistics now, with the fields of a frame of the JSON report; `step_ms` is the
        engine's wall time per frame in the last `step` call, `stage_ms` the wall time of each
        stage of its last frame."""
    def export_obj(self, dir: Union[str, os.PathLike]) -> None:
        """Writes every body at the current frame as DIR/<body>_<frame:05>.obj (the command
        line's --export files), creating the folder."""
    @property
    def frame(self) -> int:
        """Frames simulated so far."""
    @property
    def settings(self) -> dict:
        """The solver settings, as keyword arguments of World(...)."""
