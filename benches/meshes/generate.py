#!/usr/bin/env python3
"""Writes the cloth meshes of the mesh-order benchmark pairs (benches/scenes/w128_*.toml):
workload W at N = 128 as an OBJ file, its vertices in the grid's order (w128.obj) and in a
random order (w128-shuffled.obj), in metres. Run once from this folder: `python3 generate.py`."""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "meshes"))
from generate import write  # noqa: E402

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


if __name__ == "__main__":
    vs, faces = w_grid(N)
    write("w128.obj", f"Workload W, {N} x {N}, in the grid's order (pins: vertices 0 and {N - 1}).", vs, faces)
    order = list(range(len(vs)))
    random.Random(128).shuffle(order)
    new = [0] * len(vs)
    for k, old in enumerate(order):
        new[old] = k
    shuffled = [vs[old] for old in order]
    random.Random(129).shuffle(faces)
    faces = [tuple(new[v] for v in f) for f in faces]
    write("w128-shuffled.obj", f"Workload W, {N} x {N}, vertices and faces in a random order (pins: vertices {new[0]} and {new[N - 1]}).", shuffled, faces)
