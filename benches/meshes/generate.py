#!/usr/bin/env python3
"""Writes the meshes of the mesh-order benchmark pairs: workload W at N = 128 as an OBJ file
(benches/scenes/w128_*.toml), its vertices in the grid's order (w128.obj) and in a random order
(w128-shuffled.obj), a garment-like cloth of the same size (garment128.obj, in millimetres, for
benches/scenes/garment128.toml against garment128_grid.toml), and a fine torus for a surface soft
body (benches/scenes/torus_surface*.toml), in the order it is made (torus-fine.obj) and in a
random order (torus-fine-shuffled.obj); in metres unless said. Run once from this folder:
`python3 generate.py`."""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "meshes"))
from generate import torus, write  # noqa: E402

N = 128


def w_grid(n):
    """W's grid: vertex (i, j) at (i / (n - 1), 0, j / (n - 1)) with index j n + i, each cell split
    as the solver's grid() splits it: (a, b, c) and (b, d, c)."""
    vs = [(i / (n - 1), 0.0, j / (n - 1)) for j in range(n) for i in range(n)]
    faces = []
    for j in range(n - 1):
        for i in range(n - 1):
            a, b, c, d = j * n + i, j * n + i + 1, (j + 1) * n + i, (j + 1) * n + i + 1
            faces += [(a, b, c), (b, d, c)]
    return vs, faces


def shuffle(vs, faces, seed):
    """The mesh with its vertices and faces in a random order, and each old vertex's new index."""
    order = list(range(len(vs)))
    random.Random(seed).shuffle(order)
    new = [0] * len(vs)
    for k, old in enumerate(order):
        new[old] = k
    faces = list(faces)
    random.Random(seed + 1).shuffle(faces)
    return [vs[old] for old in order], [tuple(new[v] for v in f) for f in faces], new


def garment(cells, panel=500.0, sliver=0.04, seed=39):
    """A garment tool's export of a square of 2 x 2 panels, in mm: each panel a grid of `cells`
    cells a side with vertices of its own along the seams (coincident with the next panel's), a
    row of vertices `sliver` mm from each seam side (a strip of sliver triangles), its inner
    vertices moved by up to a fifth of a cell and each cell split either way at random. Welded and
    cleaned, it is a cloth of (2 cells + 1)^2 particles lying at y = 0 over [0, 2 panel]^2, its
    j = 0 edge's corners being vertex 0 and the returned `corner`."""
    rng = random.Random(seed)
    cell = panel / cells

    def coords(seam_at_end):
        """A panel's coordinates along one side, with the sliver row on its seam's side."""
        c = [k * cell for k in range(cells + 1)]
        if seam_at_end:
            c.insert(cells, panel - sliver)
        else:
            c.insert(1, sliver)
        return c

    vs, faces, corner = [], [], None
    for pj in range(2):
        for pi in range(2):
            us, ws = coords(pi == 0), coords(pj == 0)
            base = len(vs)
            for b, w in enumerate(ws):
                for a, u in enumerate(us):
                    x, z = u + pi * panel, w + pj * panel
                    if 1 < a < len(us) - 2 and 1 < b < len(ws) - 2:
                        x += (rng.random() - 0.5) * 0.4 * cell
                        z += (rng.random() - 0.5) * 0.4 * cell
                    if (pi, pj, a, b) == (1, 0, len(us) - 1, 0):
                        corner = len(vs)
                    vs.append((x, 0.0, z))
            row = len(us)
            for b in range(len(ws) - 1):
                for a in range(row - 1):
                    p00, p10 = base + b * row + a, base + b * row + a + 1
                    p01, p11 = p00 + row, p10 + row
                    if rng.random() < 0.5:
                        faces += [(p00, p01, p10), (p10, p01, p11)]
                    else:
                        faces += [(p00, p01, p11), (p00, p11, p10)]
    return vs, faces, corner


if __name__ == "__main__":
    vs, faces = w_grid(N)
    write("w128.obj", f"Workload W, {N} x {N}, in the grid's order (pins: vertices 0 and {N - 1}).", vs, faces)
    shuffled, shuffled_faces, new = shuffle(vs, faces, 128)
    write("w128-shuffled.obj", f"Workload W, {N} x {N}, vertices and faces in a random order (pins: vertices {new[0]} and {new[N - 1]}).", shuffled, shuffled_faces)
    vs, faces, corner = garment(N // 2)
    write("garment128.obj", f"A garment-like cloth: 2 x 2 panels of {N // 2} x {N // 2} cells, 1000 mm square, seams as coincident vertices with sliver rows beside them, irregular triangles (pins: vertices 0 and {corner}).", vs, faces)
    vs, faces = torus(nu=192, nv=96)
    write("torus-fine.obj", "A torus of 192 x 96 vertices, in the order it is made.", vs, faces)
    shuffled, shuffled_faces, _ = shuffle(vs, faces, 192)
    write("torus-fine-shuffled.obj", "A torus of 192 x 96 vertices, vertices and faces in a random order.", shuffled, shuffled_faces)
