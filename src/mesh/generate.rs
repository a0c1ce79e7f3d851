//! Meshes the project makes itself: the closed blobs its scenes collide with, and their OBJ text.

use super::TriMesh;
use crate::math::{Real, Vec3};
use std::fmt::Write;

/// A closed, outward-wound triangle mesh of a sphere-like blob: a UV sphere of `radius` m with
/// `rings × segments` quads, its surface pushed out by `bumps(unit direction)` (a factor of the
/// radius; `|_| 1.0` for a sphere). Used to make the meshes the scenes ship with.
pub fn blob(rings: u32, segments: u32, radius: Real, bumps: impl Fn(Vec3) -> Real) -> TriMesh {
    let mut positions = vec![Vec3::new(0.0, radius * bumps(Vec3::y()), 0.0)];
    for r in 1..rings {
        let theta = std::f32::consts::PI * r as Real / rings as Real;
        for s in 0..segments {
            let phi = std::f32::consts::TAU * s as Real / segments as Real;
            let dir = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            positions.push(dir * (radius * bumps(dir)));
        }
    }
    positions.push(Vec3::new(0.0, -radius * bumps(-Vec3::y()), 0.0));
    let bottom = positions.len() as u32 - 1;
    let at = |r: u32, s: u32| 1 + (r - 1) * segments + s % segments;
    let mut triangles = Vec::new();
    for s in 0..segments {
        triangles.push([0, at(1, s + 1), at(1, s)]);
        triangles.push([bottom, at(rings - 1, s), at(rings - 1, s + 1)]);
        for r in 1..rings - 1 {
            let (a, b, c, d) = (at(r, s), at(r, s + 1), at(r + 1, s), at(r + 1, s + 1));
            triangles.push([a, b, d]);
            triangles.push([a, d, c]);
        }
    }
    TriMesh {
        positions,
        triangles,
    }
}

/// The lumpy blob of `meshes/lumpy.obj` (about 1 m across, resting on y = 0): an ellipsoid
/// body with a head and two ears, a stand-in for the Stanford bunny that ships with the repo.
pub fn lumpy() -> TriMesh {
    let lump =
        |dir: Vec3, at: Vec3, width: Real| (-(dir - at.normalize()).norm_squared() / width).exp();
    let mut mesh = blob(24, 48, 0.4, |d| {
        1.0 + 0.45 * lump(d, Vec3::new(0.8, 0.7, 0.0), 0.12)
            + 0.6 * lump(d, Vec3::new(0.3, 1.0, 0.25), 0.02)
            + 0.6 * lump(d, Vec3::new(0.3, 1.0, -0.25), 0.02)
            - 0.25 * lump(d, -Vec3::y(), 0.3)
    });
    let bottom = mesh
        .positions
        .iter()
        .map(|p| p.y)
        .fold(Real::MAX, Real::min);
    for p in &mut mesh.positions {
        *p = Vec3::new(p.x * 1.3, p.y - bottom, p.z);
    }
    mesh
}

/// The unit cube `[0, 1]³`, two outward-wound triangles per face.
pub fn cube() -> TriMesh {
    let positions = (0..8)
        .map(|i| Vec3::new((i & 1) as Real, ((i >> 1) & 1) as Real, (i >> 2) as Real))
        .collect();
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let triangles = quads
        .iter()
        .flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]])
        .collect();
    TriMesh {
        positions,
        triangles,
    }
}

/// `mesh` as OBJ text (`v` and `f` lines, 1-based), after a `# comment` line.
pub fn obj_text(mesh: &TriMesh, comment: &str) -> String {
    let mut s = format!("# {comment}\n");
    for p in &mesh.positions {
        let _ = writeln!(s, "v {:.6} {:.6} {:.6}", p.x, p.y, p.z);
    }
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|i| i + 1);
        let _ = writeln!(s, "f {a} {b} {c}");
    }
    s
}
