#!/usr/bin/env python3
"""Writes the closed, outward-wound soft-body meshes of this folder: torus.obj, capsule.obj and
rounded-box.obj (units: metres). Run once from this folder: `python3 generate.py`."""

import math


def write(name, comment, vertices, faces):
    with open(name, "w") as f:
        f.write(f"# {comment}\n# Written by meshes/generate.py.\n")
        for x, y, z in vertices:
            f.write(f"v {x:.6f} {y:.6f} {z:.6f}\n")
        for a, b, c in faces:
            f.write(f"f {a + 1} {b + 1} {c + 1}\n")


def grid_faces(nu, nv, index, wrap_v):
    """Quads of a (u, v) grid, u wrapping, as two triangles each."""
    faces = []
    for i in range(nu):
        for j in range(nv if wrap_v else nv - 1):
            a, b = index(i, j), index((i + 1) % nu, j)
            c, d = index((i + 1) % nu, (j + 1) % nv), index(i, (j + 1) % nv)
            faces += [(a, b, c), (a, c, d)]
    return faces


def torus(R=0.35, r=0.15, nu=48, nv=24):
    vs = []
    for i in range(nu):
        u = 2 * math.pi * i / nu
        for j in range(nv):
            v = 2 * math.pi * j / nv
            vs.append(((R + r * math.cos(v)) * math.cos(u), r * math.sin(v), (R + r * math.cos(v)) * math.sin(u)))
    faces = grid_faces(nu, nv, lambda i, j: i * nv + j, True)
    return vs, [(a, c, b) for a, b, c in faces]


def revolve(profile, nu):
    """A closed surface of revolution about y from a profile [(radius, y)] running from the
    bottom pole (radius 0) to the top pole (radius 0)."""
    rings = profile[1:-1]
    vs = [(0.0, profile[0][1], 0.0)]
    for rad, y in rings:
        for i in range(nu):
            u = 2 * math.pi * i / nu
            vs.append((rad * math.cos(u), y, rad * math.sin(u)))
    top = len(vs)
    vs.append((0.0, profile[-1][1], 0.0))
    ring = lambda k, i: 1 + k * nu + i % nu
    faces = [(0, ring(0, i), ring(0, i + 1)) for i in range(nu)]
    for k in range(len(rings) - 1):
        for i in range(nu):
            a, b, c, d = ring(k, i), ring(k, i + 1), ring(k + 1, i + 1), ring(k + 1, i)
            faces += [(a, c, b), (a, d, c)]
    last = len(rings) - 1
    faces += [(top, ring(last, i + 1), ring(last, i)) for i in range(nu)]
    return vs, faces


def capsule(r=0.2, half=0.3, nu=32, n_cap=8):
    profile = [(0.0, -half - r)]
    for k in range(1, n_cap + 1):
        t = -math.pi / 2 + math.pi / 2 * k / n_cap
        profile.append((r * math.cos(t), -half + r * math.sin(t)))
    for k in range(1, 4):
        profile.append((r, -half + 2 * half * k / 4))
    for k in range(0, n_cap):
        t = math.pi / 2 * k / n_cap
        profile.append((r * math.cos(t), half + r * math.sin(t)))
    profile.append((0.0, half + r))
    return revolve(profile, nu)


def rounded_box(half=(0.4, 0.25, 0.3), r=0.08, n=6):
    """A subdivided cube pushed onto the rounded box: each grid point p of the cube's surface
    moves to the nearest point of the inner box plus r along the direction away from it."""
    inner = [h - r for h in half]
    vs, index, faces = [], {}, []
    for axis in range(3):
        for sign in (-1, 1):
            u_ax, v_ax = [a for a in range(3) if a != axis]
            ids = {}
            for i in range(n + 1):
                for j in range(n + 1):
                    p = [0.0, 0.0, 0.0]
                    p[axis] = sign
                    p[u_ax] = -1 + 2 * i / n
                    p[v_ax] = -1 + 2 * j / n
                    key = tuple(round(c, 6) for c in p)
                    if key not in index:
                        q = [max(-1.0, min(1.0, c)) * h for c, h in zip(p, inner)]
                        d = [c - qc for c, qc in zip([c * h for c, h in zip(p, half)], q)]
                        ln = math.sqrt(sum(c * c for c in d)) or 1.0
                        index[key] = len(vs)
                        vs.append(tuple(qc + r * c / ln for qc, c in zip(q, d)))
                    ids[i, j] = index[key]
            for i in range(n):
                for j in range(n):
                    a, b, c, d = ids[i, j], ids[i + 1, j], ids[i + 1, j + 1], ids[i, j + 1]
                    # (u, v, axis) right-handed when axis follows u x v; flip otherwise.
                    right = (u_ax, v_ax, axis) in [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
                    if right == (sign > 0):
                        faces += [(a, b, c), (a, c, d)]
                    else:
                        faces += [(a, c, b), (a, d, c)]
    return vs, faces


if __name__ == "__main__":
    write("torus.obj", "Torus: ring radius 0.35 m, tube radius 0.15 m.", *torus())
    write("capsule.obj", "Capsule along y: radius 0.2 m, 1.0 m long.", *capsule())
    write("rounded-box.obj", "Box 0.8 x 0.5 x 0.6 m with 0.08 m rounded edges.", *rounded_box())
