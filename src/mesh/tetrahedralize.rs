//! A tetrahedral lattice over the inside of a surface mesh, with the surface embedded in it.
//!
//! The mesh's bounding box is cut into cubic cells, `resolution` along its longest side. A cell is
//! kept when its centre or one of its corners is inside the mesh (generalized winding number
//! `w ≥ ½`, [`super::winding`]) or when it holds a surface vertex, so every surface vertex lies
//! in a kept cell. Each cell is split into the six tets of the Kuhn (Freudenthal) triangulation,
//! which all share the cell's main diagonal and cut every face along the same diagonal as the
//! neighbouring cell, so the tets of neighbours match face to face.

use super::skinning::Skin;
use super::winding::WindingTree;
use super::{Real, TriMesh, Vec3};
use rayon::prelude::*;
use std::collections::HashMap;

/// The six axis orders of the Kuhn triangulation: tet `(a, b, c)` runs from corner 000 along
/// axis `a`, then `b`, then `c` to corner 111.
const KUHN: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// Particles and tets of the lattice, and the mesh's vertices embedded in them.
#[derive(Clone, Debug, Default)]
pub struct Lattice {
    /// Particle positions (lattice corners of kept cells), m.
    pub positions: Vec<Vec3>,
    /// Tets as indices into `positions`, positively oriented.
    pub tets: Vec<[u32; 4]>,
    /// Integer lattice coordinates of each particle.
    pub coords: Vec<[i32; 3]>,
    /// The mesh's vertices embedded in the tets.
    pub skin: Skin,
}

/// Volume of the tet `(p0, p1, p2, p3)`: `(p1 − p0) × (p2 − p0) · (p3 − p0) / 6`, m³ (positive
/// when `p3` is on the side of `(p0, p1, p2)` that winds counter-clockwise).
pub fn tet_volume(p: [Vec3; 4]) -> Real {
    (p[1] - p[0]).cross(&(p[2] - p[0])).dot(&(p[3] - p[0])) / 6.0
}

/// The corners of the Kuhn tet `order` in a cell, as offsets in `{0, 1}³`.
fn kuhn_corners(order: [usize; 3]) -> [[i32; 3]; 4] {
    let mut c = [[0; 3]; 4];
    for k in 0..3 {
        c[k + 1] = c[k];
        c[k + 1][order[k]] = 1;
    }
    c
}

/// Builds the lattice over `mesh` with `resolution` cells along its longest side (at least 1).
pub fn tetrahedralize(mesh: &TriMesh, resolution: u32) -> Lattice {
    let Some(&first) = mesh.positions.first() else {
        return Lattice::default();
    };
    let (lo, hi) = mesh
        .positions
        .iter()
        .fold((first, first), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
    let extent = hi - lo;
    let cell = extent.max() / resolution.max(1) as Real;
    if cell <= 0.0 {
        return Lattice::default();
    }
    let dims = extent.map(|e| ((e / cell).ceil() as i32).max(1));
    let origin = (lo + hi) / 2.0 - dims.cast::<Real>() * (cell / 2.0);
    let at = |c: [i32; 3]| origin + Vec3::new(c[0] as Real, c[1] as Real, c[2] as Real) * cell;
    let cell_of = |v: &Vec3| -> [i32; 3] {
        let f = (v - origin) / cell;
        std::array::from_fn(|a| (f[a].floor() as i32).clamp(0, dims[a] - 1))
    };

    let tree = WindingTree::new(mesh);
    let inside = |q: Vec3| tree.winding_number(q) >= 0.5;
    let (nx, ny, nz) = (dims.x, dims.y, dims.z);
    let corner_index = |[i, j, k]: [i32; 3]| ((k * (ny + 1) + j) * (nx + 1) + i) as usize;
    let corner_inside: Vec<bool> = (0..(nx + 1) * (ny + 1) * (nz + 1))
        .into_par_iter()
        .map(|n| {
            let (i, j, k) = (
                n % (nx + 1),
                n / (nx + 1) % (ny + 1),
                n / ((nx + 1) * (ny + 1)),
            );
            inside(at([i, j, k]))
        })
        .collect();
    let cell_index = |[i, j, k]: [i32; 3]| ((k * ny + j) * nx + i) as usize;
    let mut keep: Vec<bool> = (0..nx * ny * nz)
        .into_par_iter()
        .map(|n| {
            let c = [n % nx, n / nx % ny, n / (nx * ny)];
            (0..8).any(|b| corner_inside[corner_index(offset(c, b))])
                || inside(at(c) + Vec3::repeat(cell / 2.0))
        })
        .collect();
    for v in &mesh.positions {
        keep[cell_index(cell_of(v))] = true;
    }

    let mut lattice = Lattice::default();
    let mut particle: HashMap<[i32; 3], u32> = HashMap::new();
    let mut id = |c: [i32; 3], l: &mut Lattice| {
        *particle.entry(c).or_insert_with(|| {
            l.positions.push(at(c));
            l.coords.push(c);
            (l.positions.len() - 1) as u32
        })
    };
    for n in (0..nx * ny * nz).filter(|&n| keep[n as usize]) {
        let c = [n % nx, n / nx % ny, n / (nx * ny)];
        for order in KUHN {
            let mut t = kuhn_corners(order).map(|o| id(add(c, o), &mut lattice));
            if tet_volume(t.map(|i| lattice.positions[i as usize])) < 0.0 {
                t.swap(2, 3);
            }
            lattice.tets.push(t);
        }
    }
    for v in &mesh.positions {
        let c = cell_of(v);
        let f = (v - at(c)) / cell;
        let f = f.map(|x| x.clamp(0.0, 1.0));
        let mut order = [0, 1, 2];
        order.sort_by(|&a, &b| f[b].total_cmp(&f[a]));
        let corners = kuhn_corners(order).map(|o| particle[&add(c, o)]);
        let weights = [
            1.0 - f[order[0]],
            f[order[0]] - f[order[1]],
            f[order[1]] - f[order[2]],
            f[order[2]],
        ];
        lattice.skin.tets.push(corners);
        lattice.skin.weights.push(weights);
    }
    lattice
}

/// Corner `bits` (bit `a` set: +1 along axis `a`) of cell `c`.
fn offset(c: [i32; 3], bits: i32) -> [i32; 3] {
    std::array::from_fn(|a| c[a] + ((bits >> a) & 1))
}

fn add(a: [i32; 3], b: [i32; 3]) -> [i32; 3] {
    std::array::from_fn(|k| a[k] + b[k])
}

/// Every edge of `tets` once, as `[a, b]` with `a < b`, sorted.
pub fn tet_edges(tets: &[[u32; 4]]) -> Vec<[u32; 2]> {
    let mut e: Vec<[u32; 2]> = tets
        .iter()
        .flat_map(|t| {
            [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
                .map(|(i, j)| [t[i].min(t[j]), t[i].max(t[j])])
        })
        .collect();
    e.sort_unstable();
    e.dedup();
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::obj::load_obj;
    use std::path::Path;

    #[test]
    fn kuhn_tets_fill_the_cube() {
        let vol: Real = KUHN
            .iter()
            .map(|&o| {
                tet_volume(
                    kuhn_corners(o).map(|c| Vec3::new(c[0] as Real, c[1] as Real, c[2] as Real)),
                )
                .abs()
            })
            .sum();
        assert!((vol - 1.0).abs() < 1e-6);
    }

    #[test]
    fn lattice_covers_the_mesh_and_embeds_every_vertex() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes/spot.obj");
        let mesh = load_obj(&path).unwrap();
        let l = tetrahedralize(&mesh, 12);
        assert!(
            l.tets
                .iter()
                .all(|t| tet_volume(t.map(|i| l.positions[i as usize])) > 0.0)
        );
        let skinned = l.skin.skin(&l.positions);
        for (v, s) in mesh.positions.iter().zip(&skinned) {
            assert!((v - s).norm() < 1e-5, "{v:?} skins to {s:?}");
        }
        for w in &l.skin.weights {
            assert!(w.iter().all(|&x| x >= 0.0) && (w.iter().sum::<Real>() - 1.0).abs() < 1e-5);
        }
        let edges = tet_edges(&l.tets);
        assert!(edges.windows(2).all(|e| e[0] < e[1]));
    }
}
