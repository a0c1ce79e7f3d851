"""A cloth built from NumPy arrays drops onto a sphere; the kinetic energy of every frame is
plotted with matplotlib (optional: `pip install matplotlib`; without it the energies are
printed).

Run: python python/examples/cloth_on_sphere.py [--frames 180] [--out energy.png]
"""

import argparse

import numpy as np

import supple


def grid(n, size, height):
    """An n x n grid of `size` m at `height` m: vertices (n*n, 3) and triangles (2(n-1)^2, 3)."""
    s = np.linspace(-size / 2, size / 2, n)
    x, z = np.meshgrid(s, s)
    vertices = np.stack([x.ravel(), np.full(n * n, height), z.ravel()], axis=1)
    i, j = np.meshgrid(np.arange(n - 1), np.arange(n - 1))
    a = (j * n + i).ravel()
    triangles = np.concatenate(
        [np.stack([a, a + 1, a + n], axis=1), np.stack([a + 1, a + n + 1, a + n], axis=1)]
    )
    return vertices, triangles


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=180)
    ap.add_argument("--out", default="energy.png", help="the plot (PNG)")
    args = ap.parse_args()

    world = supple.World(substeps=10, iterations=10)
    vertices, triangles = grid(40, 1.2, 0.8)
    cloth = world.add_cloth(
        vertices,
        triangles,
        0.3,
        name="sheet",
        stretch={"model": "xpbd", "compliance": 1e-7},
        bend=supple.Xpbd(compliance=5.0),
        damping=0.01,
    )
    world.add_collider("sphere", center=(0.0, 0.0, 0.0), radius=0.35, friction=0.5)
    world.add_collider("plane", point=(0.0, -0.4, 0.0))

    time, energy = [], []
    for _ in range(args.frames):
        world.step()
        stats = world.stats()
        time.append(stats["time"])
        energy.append(stats["kinetic_energy"])
    lowest = world.positions(cloth)[:, 1].min()
    print(
        f"{args.frames} frames: kinetic energy peaked at {max(energy):.4f} J "
        f"(t = {time[int(np.argmax(energy))]:.2f} s), now {energy[-1]:.5f} J; "
        f"lowest point {lowest:.3f} m, max strain {stats['max_strain']:.2%}"
    )
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
        for t, e in list(zip(time, energy))[:: max(1, args.frames // 10)]:
            print(f"  t = {t:5.2f} s   E = {e:.5f} J")
        return
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(time, energy)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("kinetic energy (J)")
    ax.set_title("A 40 x 40 cloth dropped on a sphere")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"plot written to {args.out}")


if __name__ == "__main__":
    main()
