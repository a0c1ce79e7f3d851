"""Supple and pypbd side by side, from one Python process, on the standard workload W.

W (docs/performance.md, "Workload W"): an N x N cloth, a 1 m square flat in the XZ plane at y = 0,
particle j*N + i at (i, 0, j)/(N - 1), pinned at particles 0 and N - 1, 1/N^2 kg on every
particle, a hard distance constraint on every triangle edge and between the two opposite
vertices of every pair of triangles sharing an edge, gravity only; frames of 1/60 s in 10
substeps x 10 iterations; 10 warm-up frames, then 110 timed frames (2 s in all). pypbd gets
the vertices and triangles as NumPy arrays; Supple builds the same cloth as its grid with W's
triangulation (`--build grid`, what a user would call for a grid), or from the same arrays
(`--build arrays`: a mesh cloth, whose constraints keep the arrays' order). pypbd (Jan Bender's PositionBasedDynamics,
`pip install pypbd==2.2.2`) uses PBD distance constraints with stiffness 1; Supple uses XPBD
with zero compliance (rigid), with its Gauss-Seidel and graph-colored solvers by default.

The engines take turns, one frame each (`--block`), so that all see the same load on a
shared machine. Printed: median ms per frame of each, their ratio, the stretch |l - d| / d over
the triangle edges at 2 s (max and mean), and Python's share of Supple's frame: the time of
`World.step` seen from Python minus the engine's own time of the frame (`stats()["step_ms"]`).

One thread each by default (OMP_NUM_THREADS and RAYON_NUM_THREADS set before the imports).

Run: python python/examples/compare_pypbd.py [--n 128] [--threads 1] [--method gauss-seidel]
    [--build arrays]
"""

import argparse
import os
import statistics
import sys
import time

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--n", type=int, default=128, help="particles per side")
ap.add_argument("--frames", type=int, default=110, help="timed frames, after the warm-up")
ap.add_argument("--warmup", type=int, default=10)
ap.add_argument("--block", type=int, default=1, help="frames per turn of each engine")
ap.add_argument("--threads", type=int, default=1, help="threads of each engine")
ap.add_argument(
    "--method", default="gauss-seidel,colored", help="Supple's solver methods, comma-separated"
)
ap.add_argument(
    "--build", choices=["grid", "arrays"], default="grid",
    help="Supple's W: its grid cloth (W's triangulation, the same particles and constraints), "
    "or a mesh cloth from the same arrays as pypbd's",
)
args = ap.parse_args()
os.environ["OMP_NUM_THREADS"] = str(args.threads)
os.environ["RAYON_NUM_THREADS"] = str(args.threads)

import numpy as np  # noqa: E402

import supple  # noqa: E402

try:
    import pypbd  # noqa: E402
except ImportError:
    sys.exit("pypbd is not installed: pip install pypbd==2.2.2")


def workload(n):
    """W's vertices (n*n, 3), triangles, stretch edges (every triangle edge) and bending pairs
    (the opposite vertices of two triangles sharing an edge)."""
    h = 1.0 / (n - 1)
    i, j = np.meshgrid(np.arange(n), np.arange(n))
    vertices = np.stack([i.ravel() * h, np.zeros(n * n), j.ravel() * h], axis=1)
    ci, cj = np.meshgrid(np.arange(n - 1), np.arange(n - 1))
    a = (cj * n + ci).ravel()
    b, c, d = a + 1, a + n, a + n + 1
    # Quad by quad, its two triangles one after the other (the order of Supple's own grid, whose
    # edges then sweep the cloth row by row; with every quad's first triangle listed before any
    # second one, the edges sweep it twice and Supple's stretch pass takes about 1.35x longer).
    triangles = np.stack([np.stack([a, b, c], 1), np.stack([b, d, c], 1)], 1).reshape(-1, 3)
    opposite = {}
    for p, q, r in triangles.tolist():
        for u, v, o in ((p, q, r), (q, r, p), (r, p, q)):
            opposite.setdefault((min(u, v), max(u, v)), []).append(o)
    stretch = np.array(sorted(opposite))
    bend = np.array(sorted((min(o), max(o)) for o in opposite.values() if len(o) == 2))
    return vertices, triangles, stretch, bend


def stretch_of(x, x0, edges):
    """Max and mean of |l - d| / d over `edges` at positions `x` (rest positions `x0`)."""
    x, x0 = np.asarray(x, np.float64), np.asarray(x0, np.float64)
    rest = np.linalg.norm(x0[edges[:, 0]] - x0[edges[:, 1]], axis=1)
    length = np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1)
    strain = np.abs(length - rest) / rest
    return strain.max(), strain.mean()


class Pypbd:
    """W in pypbd, stepped by its own time-step controller."""

    name = "pypbd 2.2.2"

    def __init__(self, vertices, triangles, stretch, bend, n):
        sim = pypbd.Simulation.getCurrent()
        sim.initDefault()
        self.model = sim.getModel()
        self.model.addTriangleModel(list(vertices), triangles.ravel().tolist())
        self.particles = self.model.getParticles()
        for k in range(n * n):
            self.particles.setMass(k, 1.0 / (n * n))
        self.particles.setMass(0, 0.0)
        self.particles.setMass(n - 1, 0.0)
        for a, b in np.concatenate([stretch, bend]).tolist():
            self.model.addDistanceConstraint(a, b, 1.0)
        pypbd.TimeManager.getCurrent().setTimeStepSize(1.0 / 60.0)
        self.controller = sim.getTimeStep()
        self.controller.setValueUInt(pypbd.TimeStepController.NUM_SUB_STEPS, 10)
        self.controller.setValueUInt(pypbd.TimeStepController.MAX_ITERATIONS, 10)
        self.n = n

    def frame(self):
        """Steps one frame; returns its wall time, ms."""
        t = time.perf_counter()
        self.controller.step(self.model)
        return (time.perf_counter() - t) * 1e3

    def positions(self):
        return np.array([self.particles.getPosition(k) for k in range(self.n * self.n)])


class Supple:
    """W in Supple: the grid cloth with W's triangulation (`--build grid`), or built from the
    same arrays as pypbd's (`--build arrays`, a mesh cloth in the arrays' order)."""

    def __init__(self, vertices, triangles, n, method):
        self.name = f"Supple {supple.__version__} ({method})"
        self.world = supple.World(dt=1 / 60, substeps=10, iterations=10, method=method)
        rigid = supple.Xpbd(compliance=0.0)
        keys = dict(name="w", stretch=rigid, bend=rigid, bend_kind="cross-distance")
        if args.build == "grid":
            self.cloth = self.world.add_cloth_grid(
                (n, n), 1.0, size=(1.0, 1.0), center=(0.5, 0.0, 0.5), diagonals="uniform",
                pins=[(0, 0), (-1, 0)], shear=rigid, **keys,
            )
        else:
            self.cloth = self.world.add_cloth(vertices, triangles, 1.0, pins=[0, n - 1], **keys)
        self.engine_ms = []

    def frame(self):
        """Steps one frame; returns its wall time seen from Python, ms (the engine's own time
        goes to `engine_ms`)."""
        t = time.perf_counter()
        self.world.step()
        ms = (time.perf_counter() - t) * 1e3
        self.engine_ms.append(self.world.stats()["step_ms"])
        return ms

    def positions(self):
        return self.world.positions(self.cloth)


def main():
    n = args.n
    vertices, triangles, stretch, bend = workload(n)
    print(f"W, N = {n}: {n * n} particles, {len(stretch)} stretch + {len(bend)} bending "
          f"constraints; {args.threads} thread(s); load average {open('/proc/loadavg').read().split()[:3]}")
    engines = [Pypbd(vertices, triangles, stretch, bend, n)] + [
        Supple(vertices, triangles, n, method) for method in args.method.split(",")
    ]
    times = {e.name: [] for e in engines}
    total = args.warmup + args.frames
    done = 0
    started = time.strftime("%H:%M:%S")
    while done < total:
        block = min(args.block, total - done)
        for e in engines:
            for k in range(block):
                ms = e.frame()
                if done + k >= args.warmup:
                    times[e.name].append(ms)
        done += block
    print(f"measured {started} to {time.strftime('%H:%M:%S')} UTC; load average now "
          f"{open('/proc/loadavg').read().split()[:3]}")
    print(f"{'engine':32} {'ms/frame (median)':>18} {'min':>8} {'max / mean stretch at 2 s':>28}")
    medians = {}
    for e in engines:
        ms = times[e.name]
        medians[e.name] = statistics.median(ms)
        smax, smean = stretch_of(e.positions(), vertices, stretch)
        print(f"{e.name:32} {medians[e.name]:18.2f} {min(ms):8.2f} {smax:>18.2%} / {smean:.3%}")
    pbd = engines[0]
    for ours in engines[1:]:
        engine_ms = ours.engine_ms[args.warmup:]
        overhead = statistics.median(py - en for py, en in zip(times[ours.name], engine_ms))
        print(f"{ours.name}: {medians[pbd.name] / medians[ours.name]:.1f}x faster per frame than "
              f"pypbd; Python's overhead per World.step call: median {overhead * 1e3:.1f} us = "
              f"{overhead / statistics.median(engine_ms):.3%} of the engine's "
              f"{statistics.median(engine_ms):.2f} ms frame")


if __name__ == "__main__":
    main()
