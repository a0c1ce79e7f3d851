//! Cloth: from a rectangular grid or from any triangle mesh.

use super::{Body, BodyKind};
use crate::constraints::{ConstraintSets, Stiffness};
use crate::math::{Quat, Real, Vec3};
use crate::mesh::topology::{edges, triangle_pairs};
use crate::particles::ParticleSet;

/// Which bending constraint a cloth uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BendKind {
    /// The dihedral angle between triangles sharing an edge (Müller et al. 2007, appendix A).
    #[default]
    Dihedral,
    /// A distance constraint between the two vertices opposite a shared edge.
    CrossDistance,
}

/// Material of a cloth.
#[derive(Clone, Debug, PartialEq)]
pub struct ClothMaterial {
    /// Stretch: every triangle edge (for a grid, the grid lines).
    pub stretch: Stiffness,
    /// Shear: the cell diagonals of a grid cloth.
    pub shear: Stiffness,
    /// Bending, if any.
    pub bend: Option<(Stiffness, BendKind)>,
    /// Collision distance, m.
    pub thickness: Real,
    /// Müller 2007 damping in [0, 1].
    pub damping: Real,
    /// Aerodynamic coefficient `½ ρ C_d`, kg/m³.
    pub drag: Real,
}

/// The particles and triangles of a rectangular grid cloth of `nx × nz` particles.
///
/// Particle `(i, j)` has index `j·nx + i`; quad `(i, j)` becomes triangles `(a, b, c)` and
/// `(b, d, c)` with `a = (i, j)`, `b = (i+1, j)`, `c = (i, j+1)`, `d = (i+1, j+1)` (the
/// triangulation of the standard workload W). `i` runs along +x; `j` along +z for a horizontal
/// cloth and along −y for a vertical one. The grid is centered on `center`.
pub fn grid(
    nx: u32,
    nz: u32,
    size: [Real; 2],
    center: Vec3,
    vertical: bool,
) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let along_j = if vertical { -Vec3::y() } else { Vec3::z() };
    let step = |n: u32, s: Real| if n > 1 { s / (n - 1) as Real } else { 0.0 };
    let (dx, dj) = (step(nx, size[0]), step(nz, size[1]));
    let corner = center - Vec3::x() * (size[0] / 2.0) - along_j * (size[1] / 2.0);
    let mut x = Vec::with_capacity((nx * nz) as usize);
    for j in 0..nz {
        for i in 0..nx {
            x.push(corner + Vec3::x() * (i as Real * dx) + along_j * (j as Real * dj));
        }
    }
    let mut tris = Vec::with_capacity(2 * ((nx - 1) * (nz - 1)) as usize);
    for j in 0..nz.saturating_sub(1) {
        for i in 0..nx.saturating_sub(1) {
            let (a, b, c, d) = (
                j * nx + i,
                j * nx + i + 1,
                (j + 1) * nx + i,
                (j + 1) * nx + i + 1,
            );
            tris.push([a, b, c]);
            tris.push([b, d, c]);
        }
    }
    (x, tris)
}

/// True when particles `a` and `b` of a grid of `nx` columns (see [`grid`]) are a cell diagonal
/// (a shear edge) rather than a grid line (a stretch edge).
pub fn is_grid_diagonal(nx: u32, a: u32, b: u32) -> bool {
    a.abs_diff(b) != 1 && a.abs_diff(b) != nx
}

/// Rotates `positions` by `rotation` about their bounding-box center and moves that center to
/// `center` (keeps it where it is when `None`).
pub fn place(positions: &mut [Vec3], rotation: Quat, center: Option<Vec3>) {
    let (lo, hi) = positions.iter().fold(
        (Vec3::repeat(Real::MAX), Vec3::repeat(Real::MIN)),
        |(lo, hi), p| (lo.inf(p), hi.sup(p)),
    );
    let mid = (lo + hi) / 2.0;
    let center = center.unwrap_or(mid);
    for p in positions {
        *p = center + rotation * (*p - mid);
    }
}

/// Adds a cloth to the world: particles at `positions` sharing `mass` kg equally, pinned at
/// `pinned` (body-local indices), a stretch constraint on every triangle edge (a shear one where
/// `is_shear(a, b)`), and bending on every pair of triangles sharing an edge.
#[allow(clippy::too_many_arguments)]
pub fn add_cloth(
    ps: &mut ParticleSet,
    cs: &mut ConstraintSets,
    body_index: u32,
    name: &str,
    positions: &[Vec3],
    triangles: Vec<[u32; 3]>,
    pinned: &[usize],
    mass: Real,
    material: &ClothMaterial,
    is_shear: impl Fn(u32, u32) -> bool,
) -> Body {
    let start = ps.len();
    let inv_mass = positions.len() as Real / mass;
    for (i, &x) in positions.iter().enumerate() {
        let w = if pinned.contains(&i) { 0.0 } else { inv_mass };
        ps.push(x, w, material.thickness, body_index);
    }
    let at = |local: u32| start as u32 + local;
    let stretch = cs.stretch.materials.add(material.stretch);
    let shear = cs.stretch.materials.add(material.shear);
    for [a, b] in edges(&triangles) {
        let rest = (positions[a as usize] - positions[b as usize]).norm();
        cs.stretch.push(
            at(a),
            at(b),
            rest,
            if is_shear(a, b) { shear } else { stretch },
        );
    }
    if let Some((stiffness, kind)) = material.bend {
        let pairs = triangle_pairs(&triangles);
        match kind {
            BendKind::Dihedral => {
                let mat = cs.dihedral.materials.add(stiffness);
                for q in pairs {
                    cs.dihedral.push(q.map(at), &ps.x, mat);
                }
            }
            BendKind::CrossDistance => {
                let mat = cs.bend_distance.materials.add(stiffness);
                for [_, _, a, b] in pairs {
                    let rest = (positions[a as usize] - positions[b as usize]).norm();
                    cs.bend_distance.push(at(a), at(b), rest, mat);
                }
            }
        }
    }
    cs.schedule();
    Body {
        name: name.to_string(),
        kind: BodyKind::Cloth,
        particles: start..ps.len(),
        triangles,
        damping: material.damping,
        drag: material.drag,
        skin: None,
        tets: Vec::new(),
        rest_volume: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_spans_its_size_around_its_center() {
        let (x, tris) = grid(3, 5, [2.0, 1.0], Vec3::new(0.0, 1.0, 0.0), false);
        assert_eq!(x.len(), 15);
        assert_eq!(tris.len(), 2 * 2 * 4);
        assert!((x[0] - Vec3::new(-1.0, 1.0, -0.5)).norm() < 1e-6);
        assert!((x[14] - Vec3::new(1.0, 1.0, 0.5)).norm() < 1e-6);
        let (v, _) = grid(3, 5, [2.0, 1.0], Vec3::zeros(), true);
        assert!(
            (v[14] - Vec3::new(1.0, -0.5, 0.0)).norm() < 1e-6,
            "j runs down a vertical cloth"
        );
    }

    #[test]
    fn cloth_mass_is_spread_equally_and_pins_have_zero_inverse_mass() {
        let (x, tris) = grid(4, 4, [1.0, 1.0], Vec3::zeros(), false);
        let (mut ps, mut cs) = (ParticleSet::default(), ConstraintSets::default());
        let material = ClothMaterial {
            stretch: Stiffness::default(),
            shear: Stiffness::default(),
            bend: Some((Stiffness::default(), BendKind::CrossDistance)),
            thickness: 0.01,
            damping: 0.0,
            drag: 0.0,
        };
        let body = add_cloth(
            &mut ps,
            &mut cs,
            0,
            "c",
            &x,
            tris,
            &[0, 3],
            1.6,
            &material,
            |_, _| false,
        );
        assert_eq!(body.particles, 0..16);
        assert_eq!(ps.inv_mass[0], 0.0);
        assert!(
            (ps.inv_mass[1] - 10.0).abs() < 1e-5,
            "16 particles share 1.6 kg"
        );
        // 3x3 quads: 24 horizontal/vertical edges + 9 diagonals; 9 + 12 interior edges pair triangles.
        assert_eq!(cs.stretch.len(), 33);
        assert_eq!(cs.bend_distance.len(), 21);
    }
}
