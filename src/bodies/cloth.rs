//! Cloth: from a rectangular grid or from any triangle mesh.

use super::{Body, BodyKind, MAX_PARTICLES};
use crate::constraints::{ConstraintSets, Stiffness};
use crate::math::{Quat, Real, Vec3};
use crate::mesh::topology::{edges, triangle_pairs};
use crate::particles::ParticleSet;
use crate::shape_matching::ClusterMaterial;
use crate::validate::{self, BuildError, Checked};

/// Which bending constraint a cloth uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BendKind {
    /// The dihedral angle between triangles sharing an edge (Müller et al. 2007, appendix A).
    #[default]
    Dihedral,
    /// A distance constraint between the two vertices opposite a shared edge.
    CrossDistance,
}

impl BendKind {
    /// The kind's name in scene files: `dihedral` or `cross-distance`.
    pub fn name(self) -> &'static str {
        match self {
            BendKind::Dihedral => "dihedral",
            BendKind::CrossDistance => "cross-distance",
        }
    }

    /// Parses a scene-file name; the error (at key `kind`) lists the names.
    pub fn from_name(name: &str) -> Checked<Self> {
        [BendKind::Dihedral, BendKind::CrossDistance]
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                BuildError::new(
                    "kind",
                    format!("= \"{name}\": expected \"dihedral\" or \"cross-distance\""),
                )
            })
    }
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

/// A cloth to add to a world ([`World::add_cloth`](crate::World::add_cloth)): any triangle
/// mesh, or a rectangular grid ([`ClothDesc::grid`]). The defaults are those of a scene's
/// `[[cloth]]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct ClothDesc {
    /// Unique name (default empty: `cloth<n>` for the n-th cloth of the world).
    pub name: String,
    /// Vertex positions, m: one particle each.
    pub positions: Vec<Vec3>,
    /// Triangles, as 0-based indices into `positions`.
    pub triangles: Vec<[u32; 3]>,
    /// For a grid cloth, its columns `nx` (see [`grid`]): the cell diagonals take the `shear`
    /// stiffness. `None` for a mesh cloth, where every edge is a stretch edge.
    pub grid_columns: Option<u32>,
    /// Total mass, kg, spread equally over the particles.
    pub mass: Real,
    /// Pinned vertices (indices into `positions`; default none).
    pub pin: Vec<usize>,
    /// Stretch: every triangle edge, or a grid's lines (default rigid XPBD).
    pub stretch: Stiffness,
    /// Shear: a grid's cell diagonals (default rigid XPBD).
    pub shear: Stiffness,
    /// Bending on every pair of triangles sharing an edge, and its kind (default none).
    pub bend: Option<(Stiffness, BendKind)>,
    /// Collision distance, m (default 0.01).
    pub thickness: Real,
    /// Müller 2007 damping in [0, 1]: the fraction of non-rigid velocity removed per
    /// [`RATE_TIME`](crate::params::RATE_TIME) (default 0).
    pub damping: Real,
    /// Aerodynamic coefficient `½ ρ C_d`, kg/m³ (default 0: no air).
    pub drag: Real,
    /// Collide the cloth's particles with each other (default false).
    pub self_collision: bool,
    /// Make the whole cloth one shape-matching cluster with this material (default none).
    pub shape: Option<ClusterMaterial>,
}

/// Which way a grid cloth lies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Orientation {
    /// In the XZ plane (the default).
    #[default]
    Horizontal,
    /// In the XY plane, rows running down.
    Vertical,
}

impl ClothDesc {
    /// A cloth made of `triangles` over `positions`, of `mass` kg, with the defaults.
    pub fn mesh(positions: Vec<Vec3>, triangles: Vec<[u32; 3]>, mass: Real) -> Self {
        ClothDesc {
            name: String::new(),
            positions,
            triangles,
            grid_columns: None,
            mass,
            pin: Vec::new(),
            stretch: Stiffness::default(),
            shear: Stiffness::default(),
            bend: None,
            thickness: 0.01,
            damping: 0.0,
            drag: 0.0,
            self_collision: false,
            shape: None,
        }
    }

    /// A grid cloth of `resolution = [nx, nz]` particles (each ≥ 2) spanning `size` m, centred
    /// on `center`, lying as `orientation` says (see [`grid`] for the particle order), of `mass`
    /// kg, with the defaults.
    pub fn grid(
        resolution: [u32; 2],
        size: [Real; 2],
        center: Vec3,
        orientation: Orientation,
        mass: Real,
    ) -> Checked<Self> {
        for n in resolution {
            validate::at_least(n, 2, "resolution")?;
        }
        validate::check(
            u64::from(resolution[0]) * u64::from(resolution[1]) <= MAX_PARTICLES,
            "resolution",
            || format!("= {resolution:?}: expected at most {MAX_PARTICLES} particles"),
        )?;
        for s in size {
            validate::positive(s, "size", "a size in m")?;
        }
        validate::finite(&center, "center")?;
        let vertical = orientation == Orientation::Vertical;
        let (x, tris) = grid(resolution[0], resolution[1], size, center, vertical);
        Ok(ClothDesc {
            grid_columns: Some(resolution[0]),
            ..ClothDesc::mesh(x, tris, mass)
        })
    }

    /// The cloth of the standard workload W (the README's benchmarks): an `n × n` grid spanning
    /// [0, 1] m × [0, 1] m in the XZ plane at y = 0 (the j = 0 edge on z = 0), pinned at
    /// particles 0 and `n − 1`, 1 kg in all (1/n² kg on every particle), stretch and shear on
    /// every triangle edge and cross-distance bending, all with `stiffness`; named `cloth`.
    ///
    /// # Panics
    /// If `n` < 2.
    pub fn workload_w(n: u32, stiffness: Stiffness) -> Self {
        let center = Vec3::new(0.5, 0.0, 0.5);
        let grid = ClothDesc::grid([n, n], [1.0, 1.0], center, Orientation::Horizontal, 1.0);
        ClothDesc {
            name: "cloth".into(),
            pin: vec![0, n as usize - 1],
            stretch: stiffness,
            shear: stiffness,
            bend: Some((stiffness, BendKind::CrossDistance)),
            ..grid.expect("W has at least 2 x 2 particles")
        }
    }

    /// The index of grid particle `(i, j)` (see [`grid`]), for [`ClothDesc::pin`]: `j·nx + i`.
    pub fn grid_index(nx: u32, i: u32, j: u32) -> usize {
        (j * nx + i) as usize
    }

    /// Checks every field (keys as in a scene's `[[cloth]]` table).
    pub fn validate(&self) -> Checked {
        let n = self.positions.len();
        validate::check(n > 0 && !self.triangles.is_empty(), "mesh", || {
            format!(
                "has {n} vertices and {} triangles: expected a mesh with triangles",
                self.triangles.len()
            )
        })?;
        for (k, p) in self.positions.iter().enumerate() {
            validate::finite(p, &format!("positions[{k}]"))?;
        }
        for (k, t) in self.triangles.iter().enumerate() {
            validate::check(
                t.iter().all(|&v| (v as usize) < n),
                &format!("triangles[{k}]"),
                || format!("= {t:?}: expected vertex indices in 0..{n}"),
            )?;
        }
        for (k, &v) in self.pin.iter().enumerate() {
            validate::vertex(v, n, &format!("pin[{k}]"))?;
        }
        validate::positive(self.mass, "mass", "a mass in kg")?;
        validate::stiffness(&self.stretch, "stretch")?;
        validate::stiffness(&self.shear, "shear")?;
        if let Some((bend, _)) = &self.bend {
            validate::stiffness(bend, "bend")?;
        }
        validate::positive(self.thickness, "thickness", "a distance in m")?;
        validate::in_unit(self.damping, "damping")?;
        validate::non_negative(self.drag, "drag")?;
        if let Some(shape) = &self.shape {
            shape.validate().map_err(|e| e.within("shape"))?;
        }
        Ok(())
    }

    /// Adds the cloth's particles (sharing its mass equally, pins with zero inverse mass), a
    /// stretch constraint on every triangle edge (shear on a grid's diagonals) and bending on
    /// every pair of triangles sharing an edge (the description is valid); returns its body,
    /// called `name`, the world's body number `body_index`.
    pub(crate) fn build(
        &self,
        name: String,
        ps: &mut ParticleSet,
        cs: &mut ConstraintSets,
        body_index: u32,
    ) -> Body {
        let (positions, triangles) = (&self.positions, &self.triangles);
        let start = ps.len();
        let inv_mass = positions.len() as Real / self.mass;
        for (i, &x) in positions.iter().enumerate() {
            let w = if self.pin.contains(&i) { 0.0 } else { inv_mass };
            ps.push(x, w, self.thickness, body_index);
        }
        let at = |local: u32| start as u32 + local;
        let stretch = cs.stretch.materials.add(self.stretch);
        let shear = cs.stretch.materials.add(self.shear);
        let is_shear = |a, b| {
            self.grid_columns
                .is_some_and(|nx| is_grid_diagonal(nx, a, b))
        };
        for [a, b] in edges(triangles) {
            let rest = (positions[a as usize] - positions[b as usize]).norm();
            let mat = if is_shear(a, b) { shear } else { stretch };
            cs.stretch.push(at(a), at(b), rest, mat);
        }
        if let Some((stiffness, kind)) = self.bend {
            let pairs = triangle_pairs(triangles);
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
        Body {
            name,
            kind: BodyKind::Cloth,
            particles: start..ps.len(),
            triangles: triangles.clone(),
            damping: self.damping,
            drag: self.drag,
            skin: None,
            tets: Vec::new(),
            rest_volume: 0.0,
            inv_mass,
        }
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
        let desc = ClothDesc {
            pin: vec![0, 3],
            bend: Some((Stiffness::default(), BendKind::CrossDistance)),
            ..ClothDesc::mesh(x, tris, 1.6)
        };
        desc.validate().unwrap();
        let body = desc.build("c".into(), &mut ps, &mut cs, 0);
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
