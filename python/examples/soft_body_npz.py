"""A mesh imported as a soft body falls onto the ground; the positions of every frame go to a
.npz file (`positions`: frames+1 x n x 3 particles, `surface`: frames+1 x k x 3 vertices of the
rendered surface, `triangles`: m x 3 indices into the surface, `time`: s).

Run: python python/examples/soft_body_npz.py [MESH.obj] [--model tets] [--frames 120] [--out jelly.npz]
"""

import argparse
from pathlib import Path

import numpy as np

import supple

MESH = Path(__file__).resolve().parents[2] / "meshes" / "rounded-box.obj"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mesh", nargs="?", default=str(MESH), help="an OBJ file")
    ap.add_argument("--model", default="tets", choices=["tets", "clusters", "rigid", "surface"])
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--out", default="soft_body.npz")
    args = ap.parse_args()

    world = supple.World()
    body = world.add_soft_body(
        args.mesh, 1.0, model=args.model, fit=0.4, center=(0.0, 0.5, 0.0), rotation=(20, 0, 30),
        name="jelly",
    )
    world.add_collider("plane")
    positions, surface, time = [world.positions(body)], [world.surface(body)], [0.0]
    for _ in range(args.frames):
        world.step()
        positions.append(world.positions(body))
        surface.append(world.surface(body))
        time.append(world.stats()["time"])
    np.savez_compressed(
        args.out,
        positions=np.stack(positions),
        surface=np.stack(surface),
        triangles=world.triangles(body),
        time=np.array(time),
    )
    stats = world.stats()["bodies"][0]
    print(
        f"{args.out}: {len(positions)} frames of {positions[0].shape[0]} particles "
        f"({surface[0].shape[0]} surface vertices); at rest the body holds "
        f"{stats['volume'] / stats['rest_volume']:.1%} of its volume, its centre at "
        f"y = {stats['center_of_mass'][1]:.3f} m"
    )


if __name__ == "__main__":
    main()
