#!/usr/bin/env python3
"""Writes the meshes of the mesh-order benchmark pairs: workload W at N = 128 as an OBJ file
(benches/scenes/w128_*.toml), its vertices in the grid's order (w128.obj) and in a random order
(w128-shuffled.obj), and a fine torus for a surface soft body (benches/scenes/torus_surface*.toml),
in the order it is made (torus-fine.obj) and in a random order (torus-fine-shuffled.obj); in
metres. Run once from this folder: `python3 generate.py`."""

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


if __name__ == "__main__":
    vs, faces = w_grid(N)
    write("w128.obj", f"Workload W, {N} x {N}, in the grid's order (pins: vertices 0 and {N - 1}).", vs, faces)
    shuffled, shuffled_faces, new = shuffle(vs, faces, 128)
    write("w128-shuffled.obj", f"Workload W, {N} x {N}, vertices and faces in a random order (pins: vertices {new[0]} and {new[N - 1]}).", shuffled, shuffled_faces)
    vs, faces = torus(nu=192, nv=96)
    write("torus-fine.obj", "A torus of 192 x 96 vertices, in the order it is made.", vs, faces)
    shuffled, shuffled_faces, _ = shuffle(vs, faces, 192)
    write("torus-fine-shuffled.obj", "A torus of 192 x 96 vertices, vertices and faces in a random order.", shuffled, shuffled_faces)
