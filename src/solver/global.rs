//! The global step of the `colored-global` method: a cloth's isometric bending solved for the
//! whole cloth at once, before the iterations project everything else.
//!
//! The isometric bending energy of a hinge, `E = |Σ kᵢ xᵢ|² / (2α)` (Bergou et al. 2006, see
//! [`isometric`](crate::constraints::isometric)), is quadratic in the positions with a constant
//! Hessian: over the whole family `E = ½ xᵀ Q x`, `Q = Σ_c k_c k_cᵀ / α_c` (per coordinate).
//! One implicit Euler step of it from the predicted positions `p̃` is the linear system
//! `(M + h² Q_ff) δ = −h² (Q p̃)_f` over the free particles `f` (pinned ones keep their
//! positions), the global step of projective dynamics (Bouaziz et al. 2014, "Projective
//! Dynamics: Fusing Constraint Projections for Fast Simulation", sec. 4) for an energy that
//! needs no local step. With XPBD's `α̃ = α / h²` it reads `(M + Σ k kᵀ / α̃) δ = −Σ k (kᵀp̃) / α̃`.
//! The matrix does not change from one substep to the next, so it is factorized once (faer's
//! sparse `LLᵀ`, in `f64`) and each substep costs one right-hand side and two triangular solves
//! with three columns.
//!
//! Gauss-Seidel moves a hinge's correction one hinge per sweep, so a stiff plate needs far
//! more sweeps than a frame has to feel its clamp (32 iterations per substep leave a plate of
//! 65 particles across hanging 15 times as low as its statics, `docs/performance.md`); the
//! factorization reaches every particle in one step. At rest (`p̃ = x + h² g`, `x` the statics
//! `Q_ff x_f = M g`) the step returns `x`: the statics are its fixed point whatever the
//! resolution.

use crate::constraints::IsometricSet;
use crate::constraints::stiffness::Coeffs;
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;
use faer::linalg::solvers::Solve;
use faer::sparse::linalg::solvers::Llt;
use faer::sparse::{SparseColMat, Triplet};
use faer::{MatMut, Side};
use std::collections::BTreeMap;

/// No row: the particle is pinned or in no hinge.
const NONE: u32 = u32::MAX;

/// The factorized system of the global step and what it was made from (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct GlobalStep {
    /// The inputs of the factorization; it is made again when any of them changes.
    made_from: Inputs,
    /// Row of each particle in the system, or [`NONE`].
    row: Vec<u32>,
    /// Particle of each row.
    particle: Vec<u32>,
    /// The factorization of `M + Σ k kᵀ / α̃` over the rows; `None` before the first step and
    /// when the family has no free particle.
    llt: Option<Llt<usize, f64>>,
    /// The right-hand side and then the solution: three columns (x, y, z) of one entry per row.
    rhs: Vec<f64>,
}

/// What the system depends on: the hinges, their weights and materials, each material's `α̃`
/// and every particle's inverse mass.
#[derive(Clone, Debug, Default, PartialEq)]
struct Inputs {
    ids: Vec<[u32; 4]>,
    weights: [Vec<Real>; 4],
    mat: Vec<u16>,
    alpha_tilde: Vec<Real>,
    inv_mass: Vec<Real>,
}

impl Inputs {
    /// Whether these are the inputs of `family` over the particles `ps`.
    fn are_those_of(&self, family: &IsometricSet, ps: &ParticleSet) -> bool {
        let alpha_tilde = family.materials.coeffs.iter().map(|c| c.alpha_tilde);
        self.ids == family.ids()
            && self
                .weights
                .iter()
                .zip(family.weights())
                .all(|(a, b)| a == b)
            && self.mat == family.mat
            && self.alpha_tilde.iter().copied().eq(alpha_tilde)
            && self.inv_mass == ps.inv_mass
    }

    /// The inputs of `family` over the particles `ps`.
    fn of(family: &IsometricSet, ps: &ParticleSet) -> Self {
        Inputs {
            ids: family.ids().to_vec(),
            weights: family.weights().map(<[Real]>::to_vec),
            mat: family.mat.clone(),
            alpha_tilde: family
                .materials
                .coeffs
                .iter()
                .map(|c| c.alpha_tilde)
                .collect(),
            inv_mass: ps.inv_mass.clone(),
        }
    }
}

/// Whether the global step can take a material: compliant XPBD without damping (a rigid
/// material has no finite energy, a PBD one no energy at all, and a damped one a force that
/// depends on the velocity).
pub(crate) fn takes(c: &Coeffs) -> bool {
    c.alpha_tilde > 0.0 && c.gamma == 0.0 && c.scale == 1.0
}

impl GlobalStep {
    /// Moves the predicted positions `ps.p` of the particles of `family` by one implicit step
    /// of its bending energy (see the module docs) and returns true; or returns false, and
    /// moves nothing, when the family is empty, some material is one the step does not take
    /// ([`takes`]) or the factorization fails, in which case the iterations project it as
    /// usual. The materials must be resolved for the substep.
    pub(crate) fn step(&mut self, family: &IsometricSet, ps: &mut ParticleSet) -> bool {
        if family.is_empty() || !family.materials.coeffs.iter().all(takes) {
            return false;
        }
        if !self.made_from.are_those_of(family, ps) {
            self.factorize(family, ps);
        }
        let Some(llt) = &self.llt else {
            // No free particle: nothing to move. A failed factorization (which positive masses
            // rule out) leaves the family to the iterations.
            return self.particle.is_empty();
        };
        let rows = self.particle.len();
        self.rhs.clear();
        self.rhs.resize(3 * rows, 0.0);
        let w = family.weights();
        let coeffs = &family.materials.coeffs;
        for (c, ids) in family.ids().iter().enumerate() {
            let k: [f64; 4] = std::array::from_fn(|j| f64::from(w[j][c]));
            // `kᵀp̃`, relative to the first particle: the weights sum to 0.
            let origin = ps.p[ids[0] as usize];
            let mut v = [0.0f64; 3];
            for (&i, &k) in ids.iter().zip(&k) {
                let r = ps.p[i as usize] - origin;
                v.iter_mut()
                    .zip(r.iter())
                    .for_each(|(v, &r)| *v += k * f64::from(r));
            }
            let inv_alpha = 1.0 / f64::from(coeffs[family.mat[c] as usize].alpha_tilde);
            for (&i, &k) in ids.iter().zip(&k) {
                let r = self.row[i as usize];
                if r != NONE {
                    for (d, v) in v.iter().enumerate() {
                        self.rhs[d * rows + r as usize] -= k * v * inv_alpha;
                    }
                }
            }
        }
        llt.solve_in_place(MatMut::from_column_major_slice_mut(&mut self.rhs, rows, 3));
        for (r, &i) in self.particle.iter().enumerate() {
            let delta = Vec3::new(
                self.rhs[r] as Real,
                self.rhs[rows + r] as Real,
                self.rhs[2 * rows + r] as Real,
            );
            ps.p[i as usize] += delta;
        }
        true
    }

    /// Numbers the free particles of `family`'s hinges and factorizes `M + Σ k kᵀ / α̃` over
    /// them.
    fn factorize(&mut self, family: &IsometricSet, ps: &ParticleSet) {
        self.made_from = Inputs::of(family, ps);
        (self.row, self.particle) = free_rows(family, ps);
        self.llt = cholesky(family, ps, (&self.row, &self.particle), true);
    }
}

/// The row of each particle ([`NONE`] for those pinned or in no hinge of `family`) and the
/// particle of each row, in the order the hinges first name them.
fn free_rows(family: &IsometricSet, ps: &ParticleSet) -> (Vec<u32>, Vec<u32>) {
    let mut row = vec![NONE; ps.inv_mass.len()];
    let mut particle = Vec::new();
    for &i in family.ids().iter().flatten() {
        let i = i as usize;
        if ps.inv_mass[i] > 0.0 && row[i] == NONE {
            row[i] = particle.len() as u32;
            particle.push(i as u32);
        }
    }
    (row, particle)
}

/// The factorization of `Σ k kᵀ / α̃` over the rows `(row, particle)` of [`free_rows`], plus
/// the masses when `with_mass`; `None` when there is no row or the factorization finds the
/// matrix not positive definite (without the masses: a free motion that bends no hinge).
fn cholesky(
    family: &IsometricSet,
    ps: &ParticleSet,
    (row, particle): (&[u32], &[u32]),
    with_mass: bool,
) -> Option<Llt<usize, f64>> {
    // The lower triangle, summed per entry in a fixed order.
    let mut entries = BTreeMap::<(usize, usize), f64>::new();
    for &i in particle.iter().filter(|_| with_mass) {
        let r = row[i as usize] as usize;
        entries.insert((r, r), 1.0 / f64::from(ps.inv_mass[i as usize]));
    }
    let w = family.weights();
    let coeffs = &family.materials.coeffs;
    for (c, ids) in family.ids().iter().enumerate() {
        let inv_alpha = 1.0 / f64::from(coeffs[family.mat[c] as usize].alpha_tilde);
        for (a, &i) in ids.iter().enumerate() {
            for (b, &j) in ids.iter().enumerate() {
                let (ri, rj) = (row[i as usize], row[j as usize]);
                if ri == NONE || rj == NONE || ri < rj {
                    continue;
                }
                let k = f64::from(w[a][c]) * f64::from(w[b][c]);
                *entries.entry((ri as usize, rj as usize)).or_default() += k * inv_alpha;
            }
        }
    }
    let triplets: Vec<_> = (entries.into_iter())
        .map(|((r, c), value)| Triplet::new(r, c, value))
        .collect();
    let rows = particle.len();
    if rows == 0 {
        return None;
    }
    let matrix = SparseColMat::try_new_from_triplets(rows, rows, &triplets).ok()?;
    matrix.sp_cholesky(Side::Lower).ok()
}

/// The linear statics of the hinges of `family` (flat at rest, materials resolved for a
/// substep of `h` seconds) carrying the weights of their free particles under the acceleration
/// `g`, m/s²: each particle's displacement `u` from where it is, `Q_ff u = M g` with
/// `Q = Σ k kᵀ / α = Σ k kᵀ / (α̃ h²)`; zero for the particles that are pinned or in no hinge.
/// `None` when the factorization finds that the hinges leave the free particles a motion
/// without energy (nothing pinned, so no statics), or when the family is empty or has a
/// material the global step does not take.
#[cfg(any(feature = "cli", test))]
pub(crate) fn linear_statics(
    family: &IsometricSet,
    ps: &ParticleSet,
    g: Vec3,
    h: Real,
) -> Option<Vec<Vec3>> {
    if !family.materials.coeffs.iter().all(takes) {
        return None;
    }
    let (row, particle) = free_rows(family, ps);
    let rows = particle.len();
    let h2 = f64::from(h) * f64::from(h);
    let mut rhs: Vec<f64> = (0..3)
        .flat_map(|d| particle.iter().map(move |&i| (d, i)))
        .map(|(d, i)| h2 * f64::from(g[d]) / f64::from(ps.inv_mass[i as usize]))
        .collect();
    let llt = cholesky(family, ps, (&row, &particle), false)?;
    llt.solve_in_place(MatMut::from_column_major_slice_mut(&mut rhs, rows, 3));
    let mut u = vec![Vec3::zeros(); ps.inv_mass.len()];
    for (r, &i) in particle.iter().enumerate() {
        let d = |k: usize| rhs[k * rows + r] as Real;
        u[i as usize] = Vec3::new(d(0), d(1), d(2));
    }
    Some(u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::isometric::isometric_curvature;
    use crate::math::Quat;
    use crate::{BendKind, ClothDesc, Orientation, SolverParams, Stiffness, World};

    /// The isometric hinges of a free, stiff square plate of 17 x 17 particles (0.5 m, 0.1 kg,
    /// `D` = 1 N·m), resolved for a substep of 1/1200 s, and its particles.
    fn free_plate() -> (IsometricSet, ParticleSet) {
        let mut desc = ClothDesc::grid(
            [17, 17],
            [0.5, 0.5],
            Vec3::new(0.3, 1.0, -0.2),
            Orientation::Horizontal,
            0.1,
        )
        .unwrap();
        let stiff = Stiffness::Elastic {
            stiffness: 1.0,
            damping: 0.0,
        };
        desc.bend = Some((stiff, BendKind::Isometric));
        let mut world = World::new(SolverParams::default()).unwrap();
        world.add_cloth(&desc).unwrap();
        let mut family = world.constraints().isometric.clone();
        family.materials.resolve(1.0 / 1200.0, 10);
        (family, world.particles().clone())
    }

    /// The largest distance between the positions `a` and `b`, m.
    fn largest_gap(a: &[Vec3], b: &[Vec3]) -> Real {
        (a.iter().zip(b))
            .map(|(a, b)| (a - b).norm())
            .fold(0.0, Real::max)
    }

    #[test]
    fn a_rigid_motion_of_the_rest_shape_gets_no_correction() {
        // `Σ kᵢ x̄ᵢ = 0` at rest and the weights sum to 0, so `Q` vanishes on every affine image
        // of the rest shape: the step leaves a turned and shifted plate where it is, up to the
        // rounding of its `f32` positions, 2.4e-7 m at their 2 to 3 m from the origin (measured:
        // 2.7e-7 m; bound: four of those roundings).
        let (family, mut ps) = free_plate();
        let turn = Quat::from_axis_angle(&Vec3::x_axis(), 0.7)
            * Quat::from_axis_angle(&Vec3::y_axis(), -1.1);
        let moved: Vec<Vec3> =
            ps.x.iter()
                .map(|x| turn * x + Vec3::new(2.0, -0.5, 1.0))
                .collect();
        ps.p = moved.clone();
        let mut global = GlobalStep::default();
        assert!(global.step(&family, &mut ps));
        let gap = largest_gap(&ps.p, &moved);
        assert!(gap < 1e-6, "moved by {gap} m");
    }

    #[test]
    fn a_bent_plate_loses_bending_energy_and_keeps_its_momentum() {
        // `1ᵀQ = 0`, so `(M + h² Q) δ = −h² Q p̃` gives `Σ mᵢ δᵢ = 0` when no particle is pinned.
        let (family, mut ps) = free_plate();
        let bent: Vec<Vec3> = (ps.x.iter())
            .map(|x| Vec3::new(x.x, x.y + 2.0 * (x.x - 0.3).powi(2), x.z))
            .collect();
        ps.p = bent.clone();
        let mut global = GlobalStep::default();
        assert!(global.step(&family, &mut ps));
        // Exact in `f64`; the bound is the rounding of the stored `f32` positions, `Σ mᵢ ε|pᵢ|`.
        let (mut momentum, mut rounding) = (Vec3::zeros(), 0.0);
        for ((p, b), w) in ps.p.iter().zip(&bent).zip(&ps.inv_mass) {
            momentum += (p - b) / *w;
            rounding += p.norm() * Real::EPSILON / w;
        }
        assert!(
            momentum.norm() < rounding,
            "Σ m δ = {momentum}, bound {rounding}"
        );
        // An implicit step of a quadratic energy lowers it (measured: by 38%).
        let energy = |p: &[Vec3]| -> f64 {
            let w = family.weights();
            let coeffs = &family.materials.coeffs;
            (family.ids().iter().enumerate())
                .map(|(c, ids)| {
                    let k = [w[0][c], w[1][c], w[2][c], w[3][c]];
                    let curvature = isometric_curvature(ids.map(|i| p[i as usize]), k);
                    f64::from(curvature).powi(2)
                        / f64::from(coeffs[family.mat[c] as usize].alpha_tilde)
                })
                .sum()
        };
        let (after, before) = (energy(&ps.p), energy(&bent));
        assert!(after < 0.999 * before, "energy {before} -> {after}");
    }

    #[test]
    fn the_linear_statics_are_the_fixed_point_of_the_step() {
        // At the statics `x` (`Q_ff x_f = M g`), a plate at rest predicted to `x + h² g` is
        // moved back to `x` by the step (the module docs): measured 6e-8 m off (one rounding of
        // the positions near 1 m), for a tip drop of 28 mm. The first two rows are pinned.
        let (family, mut ps) = free_plate();
        let h = 1.0 / 1200.0;
        let g = Vec3::new(0.0, -9.81, 0.0);
        assert!(
            linear_statics(&family, &ps, g, h).is_none(),
            "a free plate has no statics"
        );
        ps.inv_mass[..34].fill(0.0);
        let u = linear_statics(&family, &ps, g, h).unwrap();
        let x: Vec<Vec3> = ps.x.iter().zip(&u).map(|(x, u)| x + u).collect();
        let drop = -u.iter().map(|u| u.y).fold(0.0, Real::min);
        assert!((0.02..0.04).contains(&drop), "tip drop {drop} m");
        ps.p = (x.iter().zip(&ps.inv_mass))
            .map(|(x, &w)| if w > 0.0 { x + g * h * h } else { *x })
            .collect();
        assert!(GlobalStep::default().step(&family, &mut ps));
        let gap = largest_gap(&ps.p, &x);
        assert!(gap < 1e-6, "{gap} m from the statics");
    }

    #[test]
    fn a_rigid_material_is_left_to_the_iterations() {
        let (mut family, mut ps) = free_plate();
        family
            .materials
            .stiffness
            .iter_mut()
            .for_each(|s| *s = Stiffness::default());
        family.materials.resolve(1.0 / 1200.0, 10);
        let before = ps.p.clone();
        assert!(!GlobalStep::default().step(&family, &mut ps));
        assert_eq!(ps.p, before);
    }
}
