#!/usr/bin/env python3
"""Checks Supple's USD export with Pixar's own reader (usd-core).

Usage: python tests/usd_check.py path/to/supple [FRAMES]

Runs shipped scenes headless with both --export (OBJ) and --export-usd, opens each USD file
with pxr.Usd, and checks: the stage metadata (metres, y up, time codes per second = 1/dt, start
and end time codes), one prim per body with the OBJ's topology (faceVertexCounts and
faceVertexIndices of a mesh, curveVertexCounts of a rope), every frame's points and normals
equal to the OBJ export's bit for bit, one prim per collider, and the time samples of a
spinning collider. `.ci/run` runs it in a venv with usd-core installed.
"""

import json
import math
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np
from pxr import Gf, Usd, UsdGeom

REPO = pathlib.Path(__file__).resolve().parent.parent
# Cloth and plane; a rope and a box; four soft bodies (skinned surfaces); a spinning sphere (whose
# shape does not change); a capsule; a mesh collider.
SCENES = ["default", "rope", "soft-models", "twist", "flag", "cloth_on_mesh"]
# A tearing cloth, whose faces are sampled where they change: it tears from frame 25 on.
TEARING = ("curtain", 40)
# The rope scene with a body name that is no USD identifier, and a box that rises at 0.5 m/s and
# turns at 1.5 rad/s about y.
MOVING = """
[solver]
dt = 0.016666667
substeps = 10
iterations = 5

[[rope]]
name = "my-rope.1"
start = [0.0, 2.0, 0.0]
end = [1.0, 2.0, 0.0]
segments = 20
mass = 0.21
pin = ["start"]
stretch = { model = "xpbd", compliance = 0.005 }

[[collider]]
shape = "box"
center = [0.3, 0.6, 0.0]
half_extents = [0.15, 0.15, 0.3]
rotation = [0.0, 0.0, 30.0]
motion = { velocity = [0.0, 0.5, 0.0], spin = [0.0, 1.5, 0.0] }
"""


def prim_name(body):
    """The body's prim name, as Supple makes it (shipped scenes have unique names)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", body)
    return name if re.match(r"[A-Za-z_]", name) else "_" + name


def read_obj(path):
    """The name, vertices, normals (float32) and faces or polyline (0-based) of an OBJ file."""
    name, v, vn, faces, line = None, [], [], [], None
    for row in path.read_text().splitlines():
        tag, *rest = row.split()
        if tag == "o":
            name = rest[0]
        elif tag == "v":
            v.append(rest)
        elif tag == "vn":
            vn.append(rest)
        elif tag == "f":
            faces.append([int(c.split("/")[0]) - 1 for c in rest])
        elif tag == "l":
            line = [int(c) - 1 for c in rest]
    f32 = lambda rows: np.array(rows, dtype=np.float64).astype(np.float32).reshape(-1, 3)
    return name, f32(v), f32(vn), faces, line


def same_bits(a, b):
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def check_scene(supple, toml, frames, out):
    scene = toml.stem
    obj_dir, usda, report = out / scene, out / f"{scene}.usda", out / f"{scene}.json"
    subprocess.run(
        [supple, "run", str(toml), "--headless", "--frames", str(frames),
         "--export", str(obj_dir), "--export-usd", str(usda), "--report", str(report)],
        check=True, stdout=subprocess.DEVNULL)
    stage = Usd.Stage.Open(str(usda))
    assert stage, f"{usda} does not open"
    dt = json.loads(report.read_text())["settings"]["dt"]
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0
    assert UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.y
    assert abs(stage.GetTimeCodesPerSecond() - 1.0 / dt) < 1e-3 * (1.0 / dt), stage.GetTimeCodesPerSecond()
    assert stage.GetFramesPerSecond() == stage.GetTimeCodesPerSecond()
    assert (stage.GetStartTimeCode(), stage.GetEndTimeCode()) == (0, frames)
    times = [float(k) for k in range(frames + 1)]

    bodies = sorted({p.name.rsplit("_", 1)[0] for p in obj_dir.glob("*.obj")})
    assert bodies, f"{scene}: no OBJ files"
    prims = stage.GetPrimAtPath("/World/Bodies").GetChildren()
    assert len(prims) == len(bodies), (prims, bodies)
    for body in bodies:
        prim = stage.GetPrimAtPath(f"/World/Bodies/{prim_name(body)}")
        assert prim, f"{scene}: no prim for body {body}"
        _, _, _, faces, line = read_obj(obj_dir / f"{body}_{0:05}.obj")
        if line is not None:
            curves = UsdGeom.BasisCurves(prim)
            assert curves, f"{body} is a rope but its prim is {prim.GetTypeName()}"
            assert list(curves.GetCurveVertexCountsAttr().Get()) == [len(line)]
            assert line == list(range(len(line)))
            geom, normals_attr, faces_attr = curves, None, None
        else:
            mesh = UsdGeom.Mesh(prim)
            assert mesh, f"{body} is a mesh but its prim is {prim.GetTypeName()}"
            assert list(mesh.GetFaceVertexCountsAttr().Get()) == [len(f) for f in faces]
            faces_attr = mesh.GetFaceVertexIndicesAttr()
            assert mesh.GetNormalsInterpolation() == UsdGeom.Tokens.vertex
            geom, normals_attr = mesh, mesh.GetNormalsAttr()
        points_attr = geom.GetPointsAttr()
        assert points_attr.GetTimeSamples() == times, points_attr.GetTimeSamples()
        for k in range(frames + 1):
            _, v, vn, faces, _ = read_obj(obj_dir / f"{body}_{k:05}.obj")
            assert same_bits(points_attr.Get(k), v), f"{scene}/{body}: points of frame {k} differ"
            if faces_attr is not None:
                indices = [i for f in faces for i in f]
                assert list(faces_attr.Get(k)) == indices, f"{scene}/{body}: faces of frame {k} differ"
            if normals_attr is not None:
                assert same_bits(normals_attr.Get(k), vn), f"{scene}/{body}: normals of frame {k} differ"
            lo, hi = geom.GetExtentAttr().Get(k)
            assert same_bits([lo, hi], [v.min(axis=0), v.max(axis=0)]), f"{scene}/{body}: extent of frame {k}"

    colliders = stage.GetPrimAtPath("/World/Colliders").GetChildren()
    assert len(colliders) == toml.read_text().count("[[collider]]"), colliders
    for prim in colliders:
        xform = UsdGeom.Xformable(prim)
        ops = [op.GetOpName() for op in xform.GetOrderedXformOps()]
        assert ops[:2] == ["xformOp:translate", "xformOp:orient"], ops
        kind = prim.GetName().split("_")[0]
        assert prim.GetTypeName() == {"plane": "Mesh", "sphere": "Sphere", "box": "Cube",
                                      "capsule": "Capsule", "mesh": "Mesh"}[kind]
        orient = prim.GetAttribute("xformOp:orient")
        translate = prim.GetAttribute("xformOp:translate")
        if scene == "moving":
            assert ops == ["xformOp:translate", "xformOp:orient", "xformOp:scale"], ops
            assert prim.GetAttribute("xformOp:scale").Get() == Gf.Vec3f(0.15, 0.15, 0.3)
            assert orient.GetTimeSamples() == times and translate.GetTimeSamples() == times
            q0 = orient.Get(0)
            for k in range(frames + 1):
                t = k * dt
                want_t = Gf.Vec3f(0.3, 0.6 + 0.5 * t, 0.0)
                assert (translate.Get(k) - want_t).GetLength() < 1e-5, (k, translate.Get(k), want_t)
                turn = Gf.Quatf(math.cos(0.75 * t), 0.0, math.sin(0.75 * t), 0.0)
                assert abs(Gf.Dot(orient.Get(k), turn * q0)) > 1 - 1e-6, (k, orient.Get(k))
        elif scene != TEARING[0]:  # whose ball flies
            assert orient.GetNumTimeSamples() == 0 and translate.GetNumTimeSamples() == 0, prim
    print(f"{scene}: {len(bodies)} bodies and {len(colliders)} colliders, {frames + 1} frames: OK")


def main():
    supple = sys.argv[1]
    frames = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    with tempfile.TemporaryDirectory() as out:
        out = pathlib.Path(out)
        for scene in SCENES:
            check_scene(supple, REPO / "scenes" / f"{scene}.toml", frames, out)
        scene, at_least = TEARING
        check_scene(supple, REPO / "scenes" / f"{scene}.toml", max(frames, at_least), out)
        moving = out / "moving.toml"
        moving.write_text(MOVING)
        check_scene(supple, moving, frames, out)
        assert out.joinpath("moving.usda").read_text().count('def BasisCurves "my_rope_1"') == 1


if __name__ == "__main__":
    main()
