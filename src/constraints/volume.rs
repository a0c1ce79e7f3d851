//! Volume constraints: per tetrahedron, and one global enclosed volume per closed surface (a
//! balloon with a pressure factor).

use super::Coeffs;
use super::bending::QuadCorrection;
use super::family::{Family, FamilyKind, Projection, project_one};
use super::stiffness::{MaterialTable, delta_lambda};
use crate::math::{LaneVec, Lanes, Real, Vec3};
use crate::mesh::tetrahedralize::tet_volume;
use crate::particles::ParticleSet;
use std::ops::Range;

/// Tetrahedron volume constraints (see [`Family`]): the four particles of each tet, positively
/// oriented; `rest` holds the rest volumes `V₀`, m³; stiffness per material as XPBD compliance in
/// m⁵/N (`C` is in m³).
pub type TetVolumeSet = Family<4, TetVolume>;

/// The kind of [`TetVolumeSet`]: its kernel is [`solve_tet_volume`].
#[derive(Clone, Copy, Debug, Default)]
pub struct TetVolume;

/// The gradient of `6V` of the tet `p` with respect to its four vertices:
/// `∇₁ = (p₂ − p₀) × (p₃ − p₀)`, `∇₂ = (p₃ − p₀) × (p₁ − p₀)`, `∇₃ = (p₁ − p₀) × (p₂ − p₀)`,
/// `∇₀ = −(∇₁ + ∇₂ + ∇₃)`.
pub fn tet_volume_gradient(p: [Vec3; 4]) -> [Vec3; 4] {
    volume_and_gradient(p.map(LaneVec::from)).1.map(Vec3::from)
}

/// `6V` of the tet `p` and its gradient (see [`tet_volume_gradient`]), for one tet or for one
/// per lane of a batch (see [`Lanes`]).
#[inline(always)]
fn volume_and_gradient<T: Lanes>(p: [LaneVec<T>; 4]) -> (T, [LaneVec<T>; 4]) {
    let (e1, e2, e3) = (p[1] - p[0], p[2] - p[0], p[3] - p[0]);
    let (g1, g2, g3) = (e2.cross(e3), e3.cross(e1), e1.cross(e2));
    // `g3·e3` is `(p₁ − p₀) × (p₂ − p₀) · (p₃ − p₀)`, as `tet_volume` computes it.
    (g3.dot(e3), [-(g1 + g2 + g3), g1, g2, g3])
}

/// Projects one tet volume constraint `C = 6(V − V₀)`, `V = (p₁ − p₀) × (p₂ − p₀) · (p₃ − p₀) / 6`,
/// with `∇C` of [`tet_volume_gradient`] (Müller et al. 2007, "Position Based Dynamics",
/// sec. 4.4; XPBD update of Macklin et al. 2016, as in Macklin and Müller's "Ten Minute
/// Physics" soft bodies). `dx` holds `p − x` of each particle this substep, read only by XPBD
/// damping. A flat tet with all-pinned or zero gradient gets a zero correction.
pub fn solve_tet_volume(
    p: [Vec3; 4],
    w: [Real; 4],
    v0: Real,
    lambda: Real,
    dx: Option<[Vec3; 4]>,
    k: &Coeffs,
) -> QuadCorrection {
    project_one::<4, TetVolume>(p, w, v0, [0.0; 4], lambda, dx, k).into()
}

/// The update of a four-particle constraint of value `c` and gradient `grad` (see
/// [`delta_lambda`]): `Δpᵢ = s wᵢ ∇ᵢC Δλ`, zero where `applied` is 0.
#[inline(always)]
fn quad_update<T: Lanes>(
    c: T,
    grad: [LaneVec<T>; 4],
    w: [T; 4],
    lambda: T,
    dx: Option<[LaneVec<T>; 4]>,
    k: &Coeffs<T>,
    applied: T,
) -> Projection<T, 4> {
    let w_grad_sq = w[0] * grad[0].norm_squared()
        + w[1] * grad[1].norm_squared()
        + w[2] * grad[2].norm_squared()
        + w[3] * grad[3].norm_squared();
    // A `match`, not `Option::map`: LLVM did not inline the closure into the AVX walk.
    #[allow(clippy::manual_map)]
    let grad_dot_dx = match dx {
        Some(dx) => {
            Some(grad[0].dot(dx[0]) + grad[1].dot(dx[1]) + grad[2].dot(dx[2]) + grad[3].dot(dx[3]))
        }
        None => None,
    };
    let delta_lambda = delta_lambda(c, w_grad_sq, grad_dot_dx, lambda, k) * applied;
    let s = k.scale * delta_lambda;
    Projection {
        dp: [
            grad[0] * (w[0] * s),
            grad[1] * (w[1] * s),
            grad[2] * (w[2] * s),
            grad[3] * (w[3] * s),
        ],
        delta_lambda,
        applied,
    }
}

impl TetVolumeSet {
    /// Adds a constraint whose rest volume is the volume at `x` (the particles' rest positions).
    pub fn push(&mut self, ids: [u32; 4], x: &[Vec3], mat: u16) {
        self.push_constraint(ids, tet_volume(ids.map(|i| x[i as usize])), mat);
    }
}

impl FamilyKind<4> for TetVolume {
    #[inline(always)]
    fn project<T: Lanes>(
        p: [LaneVec<T>; 4],
        w: [T; 4],
        v0: T,
        _: [T; 4],
        lambda: T,
        dx: Option<[LaneVec<T>; 4]>,
        k: &Coeffs<T>,
    ) -> Projection<T, 4> {
        let (six_v, grad) = volume_and_gradient(p);
        let c = (six_v / T::splat(6.0) - v0) * T::splat(6.0);
        quad_update(c, grad, w, lambda, dx, k, T::splat(1.0))
    }
}

/// The volume enclosed by the closed, outward-wound triangles `tris` over positions `x`:
/// `V = (1/6) Σ (a × b) · c`, m³.
pub fn enclosed_volume(x: &[Vec3], tris: &[[u32; 3]]) -> Real {
    tris.iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| x[i as usize]);
            a.cross(&b).dot(&c)
        })
        .sum::<Real>()
        / 6.0
}

/// One global volume constraint per closed surface: `C = V − k_p V₀`, with `V` the enclosed
/// volume and `k_p` the pressure factor (1 keeps the rest volume, > 1 inflates), and
/// `∇ᵢC = (1/6) Σ_{(i, j, k) ∋ i} xⱼ × xₖ` over the triangles around vertex `i`, each taken in its
/// winding order starting at `i` (Müller et al. 2007, "Position Based Dynamics", sec. 4.4).
#[derive(Clone, Debug, Default)]
pub struct PressureSet {
    /// The particles of each surface (world indices).
    pub particles: Vec<Range<usize>>,
    /// The triangles of each surface, as world particle indices.
    pub triangles: Vec<Vec<[u32; 3]>>,
    /// Target volume `k_p V₀` of each surface, m³.
    pub target: Vec<Real>,
    /// Lagrange multiplier accumulated in the current substep.
    pub lambda: Vec<Real>,
    /// Index into `materials`.
    pub mat: Vec<u16>,
    /// Stiffness per material (XPBD compliance in m⁵/N: `C` is in m³).
    pub materials: MaterialTable,
    /// Gradient scratch space, one entry per particle of the largest surface.
    grad: Vec<Vec3>,
}

impl PressureSet {
    /// Number of constraints.
    pub fn len(&self) -> usize {
        self.target.len()
    }

    /// True when the set holds no constraint.
    pub fn is_empty(&self) -> bool {
        self.target.is_empty()
    }

    /// Adds the surface `triangles` over `particles`, keeping `pressure` times its current
    /// volume at `x`.
    pub fn push(
        &mut self,
        particles: Range<usize>,
        triangles: Vec<[u32; 3]>,
        x: &[Vec3],
        pressure: Real,
        mat: u16,
    ) {
        self.target.push(pressure * enclosed_volume(x, &triangles));
        self.particles.push(particles);
        self.triangles.push(triangles);
        self.lambda.push(0.0);
        self.mat.push(mat);
    }

    /// Projects every constraint once. One pass over the triangles sums the cross products of
    /// the gradient and, from the same products, six times the volume ([`enclosed_volume`]);
    /// each particle's sum is divided by 6 once (not each term: 3 divisions per particle rather
    /// than 9 per triangle).
    pub fn project_serial(&mut self, ps: &mut ParticleSet) {
        for c in 0..self.len() {
            let range = self.particles[c].clone();
            self.grad.clear();
            self.grad.resize(range.len(), Vec3::zeros());
            let mut six_v = 0.0;
            for t in &self.triangles[c] {
                let [a, b, d] = t.map(|i| i as usize);
                let (xa, xb, xd) = (ps.p[a], ps.p[b], ps.p[d]);
                let ab = xa.cross(&xb);
                six_v += ab.dot(&xd);
                self.grad[a - range.start] += xb.cross(&xd);
                self.grad[b - range.start] += xd.cross(&xa);
                self.grad[d - range.start] += ab;
            }
            let k = &self.materials.coeffs[self.mat[c] as usize];
            let v = six_v / 6.0;
            let (mut w_grad_sq, mut grad_dot_dx) = (0.0, 0.0);
            for (g, i) in self.grad.iter_mut().zip(range.clone()) {
                *g /= 6.0;
                w_grad_sq += ps.inv_mass[i] * g.norm_squared();
                grad_dot_dx += g.dot(&(ps.p[i] - ps.x[i]));
            }
            let dl = delta_lambda(
                v - self.target[c],
                w_grad_sq,
                Some(grad_dot_dx),
                self.lambda[c],
                k,
            );
            let s = k.scale * dl;
            for (g, i) in self.grad.iter().zip(range) {
                ps.p[i] += g * (ps.inv_mass[i] * s);
            }
            self.lambda[c] += dl;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::Stiffness;
    use crate::constraints::batched::{
        assert_batched_matches_scalar, test_materials, test_particles,
    };

    fn tet() -> [Vec3; 4] {
        [
            Vec3::new(0.1, 0.0, -0.2),
            Vec3::new(1.0, 0.2, 0.1),
            Vec3::new(0.2, 0.9, 0.0),
            Vec3::new(0.0, 0.1, 1.1),
        ]
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let p = tet();
        let grad = tet_volume_gradient(p);
        let six_v = |p| 6.0 * tet_volume(p);
        crate::constraints::assert_gradient(p, six_v, grad, (1e-3, 1e-3));
    }

    #[test]
    fn rigid_projection_restores_the_volume_and_keeps_the_centroid() {
        let p = tet();
        let v0 = tet_volume(p);
        let squashed = p.map(|x| Vec3::new(x.x, x.y * 0.7, x.z));
        let w = [1.0, 2.0, 0.5, 1.0];
        let k = Stiffness::default().coeffs(0.01, 1);
        let mut q = squashed;
        for _ in 0..5 {
            let r = solve_tet_volume(q, w, v0, 0.0, None, &k);
            for (qi, dp) in q.iter_mut().zip(r.dp) {
                *qi += dp;
            }
        }
        assert!((tet_volume(q) - v0).abs() < 1e-5 * v0);
        let momentum: Vec3 = (0..4).map(|i| (q[i] - squashed[i]) / w[i]).sum();
        assert!(momentum.norm() < 1e-5);
    }

    #[test]
    fn pinned_tet_does_not_move() {
        let p = tet();
        let k = Stiffness::default().coeffs(0.01, 1);
        let r = solve_tet_volume(p, [0.0; 4], 1.0, 0.0, None, &k);
        assert!(r.dp.iter().all(|d| *d == Vec3::zeros()));
    }

    #[test]
    fn pressure_inflates_a_tetrahedron_surface_to_its_target() {
        let mut ps = ParticleSet::default();
        for x in tet() {
            ps.push(x, 1.0, 0.01, 0);
        }
        let tris = vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]];
        let v0 = enclosed_volume(&ps.x, &tris);
        assert!((v0 - tet_volume(tet())).abs() < 1e-6);
        let mut set = PressureSet::default();
        let mat = set.materials.add(Stiffness::default());
        set.push(0..4, tris.clone(), &ps.x, 1.5, mat);
        set.materials.resolve(0.01, 1);
        for _ in 0..10 {
            set.project_serial(&mut ps);
        }
        assert!((enclosed_volume(&ps.p, &tris) - 1.5 * v0).abs() < 1e-4 * v0);
    }

    #[test]
    fn batched_projection_matches_the_scalar_kernel_bit_for_bit() {
        assert_batched_matches_scalar(family);
    }

    /// The tets of the unit cube's lattice at resolution 8 (3,072 tets), squashed and sheared;
    /// one or two materials, a few pins.
    fn family(damping: Real, two_materials: bool) -> (TetVolumeSet, ParticleSet) {
        let lattice =
            crate::mesh::tetrahedralize::tetrahedralize(&crate::mesh::generate::cube(), 8);
        let mut ps = test_particles(lattice.positions.iter().copied());
        let mut set = TetVolumeSet::default();
        let [first, second] = test_materials(&mut set.materials, 1e-6, damping, two_materials);
        // Ordered for batches, as a tets body's are.
        let tets = crate::solver::schedule::order_for_batches(lattice.tets.clone());
        for (t, &tet) in tets.iter().enumerate() {
            set.push(tet, &ps.x, if t % 6 == 2 { second } else { first });
        }
        set.schedule();
        set.materials.resolve(0.01, 4);
        for (i, p) in (0u32..).zip(&mut ps.p) {
            let h = (i * 7 % 11) as Real * 0.004;
            *p = Vec3::new(p.x + 0.2 * p.y, p.y * 0.8 + h, p.z);
        }
        ps.x = ps.p.iter().map(|p| p * 0.99).collect();
        (set, ps)
    }
}
