//! Shape matching over overlapping clusters of particles (Müller, Heidelberger, Teschner and
//! Gross 2005, "Meshless Deformations Based on Shape Matching"), with the rotation extracted by
//! the robust iterative method of Müller, Bender, Chentanez and Macklin 2016, "A Robust Method
//! to Extract the Rotational Part of Deformations".
//!
//! For a cluster with rest offsets `qᵢ = x⁰ᵢ − x⁰_cm` and current centre of mass `c`:
//! `A_pq = Σ mᵢ (pᵢ − c) qᵢᵀ`; `R` is the rotation of `A_pq`; the goal of particle `i` is
//! `gᵢ = (β A + (1 − β) R) qᵢ + c` with `A = A_pq A_qq⁻¹` scaled to unit determinant (the
//! "linear" deformation, sec. 4.2); the particle moves by `α (gᵢ − pᵢ)`. Clusters are matched
//! as a constraint inside the solver's iterations (Macklin et al. 2014, "Unified Particle
//! Physics for Real-Time Applications", sec. 5), before the contacts, which have the final word;
//! `α` is the cluster's stiffness, a fraction per [`RATE_TIME`], taken in pieces
//! ([`fraction_over`]) so that a body is as stiff at any substep and iteration count. Plasticity (sec. 4.4) accumulates the deformation `S = Rᵀ A` into a
//! plastic matrix `Sₚ` (rest offsets `Sₚ q⁰ᵢ`) when `|S − I|` exceeds the yield.

use crate::math::{Mat3, Quat, Real, Vec3};
#[cfg(any(test, doc))]
use crate::params::RATE_TIME;
use crate::params::fraction_over;
use crate::particles::ParticleSet;
use crate::solver::simd;
use crate::validate::{self, Checked};

/// The material of a cluster.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClusterMaterial {
    /// Fraction `α` in [0, 1] of the way to the goal positions moved per [`RATE_TIME`], at any
    /// substep and iteration count (1: rigid).
    pub stiffness: Real,
    /// Weight `β` in [0, 1] of the linear deformation in the goal (0: rigid goal).
    pub beta: Real,
    /// Plastic yield: deformation `|S − I|` (Frobenius) above which plastic flow starts
    /// (infinite: elastic).
    pub plastic_yield: Real,
    /// Plastic creep, 1/s: how fast the rest shape flows towards the deformation.
    pub creep: Real,
    /// Largest plastic deformation `|Sₚ − I|`.
    pub max: Real,
}

impl Default for ClusterMaterial {
    /// Elastic, rigid goal, full stiffness.
    fn default() -> Self {
        ClusterMaterial {
            stiffness: 1.0,
            beta: 0.0,
            plastic_yield: Real::INFINITY,
            creep: 0.0,
            max: 0.0,
        }
    }
}

impl ClusterMaterial {
    /// Checks the ranges: `stiffness` and `beta` in [0, 1], `yield` (may be infinite), `creep`
    /// and `max` ≥ 0 (the keys of a scene's `shape` table).
    pub fn validate(&self) -> Checked {
        validate::in_unit(self.stiffness, "stiffness")?;
        validate::in_unit(self.beta, "beta")?;
        let y = self.plastic_yield;
        validate::check(y >= 0.0, "yield", || {
            format!("= {y}: expected a value >= 0")
        })?;
        validate::non_negative(self.creep, "creep")?;
        validate::non_negative(self.max, "max")?;
        Ok(())
    }
}

/// Shape-matching clusters, solved in a fixed order.
#[derive(Clone, Debug, Default)]
pub struct ClusterSet {
    /// Start of each cluster's members in `members`; cluster `c` is
    /// `members[offsets[c]..offsets[c + 1]]`.
    pub offsets: Vec<usize>,
    /// World indices of the members of every cluster, back to back.
    pub members: Vec<u32>,
    /// Original rest offsets `q⁰ᵢ` of each member from its cluster's rest centre of mass, m.
    pub rest: Vec<Vec3>,
    /// Material of each cluster.
    pub material: Vec<ClusterMaterial>,
    /// Rotation of each cluster found in the previous substep (the warm start of the
    /// iteration of Müller et al. 2016).
    pub rotation: Vec<Quat>,
    /// Plastic deformation `Sₚ` of each cluster (identity: none).
    pub plastic: Vec<Mat3>,
    /// Rest offsets with the plastic deformation applied, `Sₚ q⁰ᵢ`, m, member by member: formed
    /// again only when a cluster's `Sₚ` is not the one they were formed with (`shaped_by`).
    shaped: Vec<Vec3>,
    /// The `Sₚ` of each cluster's `shaped` offsets (NaN: not formed yet).
    shaped_by: Vec<Mat3>,
    /// `A_qq⁻¹` of each cluster (`A_qq = Σ mᵢ qᵢ qᵢᵀ`; none: singular), formed again when its
    /// offsets or its members' masses change.
    a_qq_inv: Vec<Option<Mat3>>,
    /// The inverse mass of each member at its cluster's previous match (NaN: none yet), member
    /// by member.
    inv_mass_seen: Vec<Real>,
    /// The mass of each member for that inverse mass, kg (see [`mass`]), member by member.
    mass: Vec<Real>,
    /// The centre of mass of each cluster at its previous match (at first its rest centre), m:
    /// the origin of the offsets that its next match sums (see `Moments::of`).
    origin: Vec<Vec3>,
    /// The corrections towards the goal of the members of the cluster being matched, m, kept
    /// so that [`ClusterSet::match_shapes`] does not allocate.
    dp: Vec<Vec3>,
}

/// Most iterations of the rotation extraction per call; warm-started, it usually stops after a
/// few, when the rotation step falls below [`ROTATION_TOLERANCE`].
const ROTATION_ITERATIONS: usize = 50;
/// Rotation step, rad, below which the extraction has converged (near `f32` precision).
const ROTATION_TOLERANCE: Real = 1e-6;

/// The rotational part of `a`, starting from the guess `q` (Müller et al. 2016, algorithm 1):
/// repeatedly rotate `R` about `ω = Σᵢ rᵢ × aᵢ / (|Σᵢ rᵢ · aᵢ| + ε)` (`rᵢ`, `aᵢ` the columns of
/// `R` and `a`), which turns `R` towards `a`, at most `iterations` times or until `|ω|` is below
/// `ROTATION_TOLERANCE`. It returns a proper rotation (no reflection) even for
/// singular or reflected `a`.
///
/// Each step turns by `2 atan(|ω| / 2)`, the angle of the quaternion `(1, ω / 2)`, where the
/// paper turns by `|ω|`: the two agree to third order in `|ω|`, the fixed point `ω = 0` is the
/// same, and the step's quaternion is `(2 (|Σ rᵢ · aᵢ| + ε), Σ rᵢ × aᵢ)` over its norm, which
/// needs no sine or cosine and whose norm comes from the sums the convergence test makes. A step
/// is a chain of dependent operations, so its length is what the extraction costs; the guess is
/// normalized once, at the end.
#[inline(always)]
pub fn extract_rotation(a: &Mat3, mut q: Quat, iterations: usize) -> Quat {
    for _ in 0..iterations {
        let r = q.to_rotation_matrix();
        let r = r.matrix();
        let num = r.column(0).cross(&a.column(0))
            + r.column(1).cross(&a.column(1))
            + r.column(2).cross(&a.column(2));
        let den = (r.column(0).dot(&a.column(0))
            + r.column(1).dot(&a.column(1))
            + r.column(2).dot(&a.column(2)))
        .abs()
            + 1e-9;
        // |ω| < tolerance, with ω = num / den.
        let num2 = num.norm_squared();
        if num2 < (ROTATION_TOLERANCE * den).powi(2) {
            break;
        }
        // The step's norm, from what the test has summed: found beside the product, not after.
        let step = nalgebra::Quaternion::new(2.0 * den, num.x, num.y, num.z);
        let scale = 1.0 / (4.0 * den * den + num2).sqrt();
        q = Quat::new_unchecked(step * q.into_inner() * scale);
    }
    Quat::new_normalize(q.into_inner())
}

impl ClusterSet {
    /// Number of clusters.
    pub fn len(&self) -> usize {
        self.material.len()
    }

    /// True when there is no cluster.
    pub fn is_empty(&self) -> bool {
        self.material.is_empty()
    }

    /// Adds a cluster of `members` (world indices) at rest positions `x` with masses from
    /// `inv_mass` (pinned members count with a large mass).
    pub fn push(
        &mut self,
        members: &[u32],
        x: &[Vec3],
        inv_mass: &[Real],
        material: ClusterMaterial,
    ) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        let m: Vec<Real> = members
            .iter()
            .map(|&i| mass(inv_mass[i as usize]))
            .collect();
        let cm = center_of_mass(members, x, &m);
        self.members.extend_from_slice(members);
        self.rest
            .extend(members.iter().map(|&i| x[i as usize] - cm));
        self.offsets.push(self.members.len());
        self.material.push(material);
        self.rotation.push(Quat::identity());
        self.plastic.push(Mat3::identity());
        self.shaped.resize(self.rest.len(), Vec3::zeros());
        self.shaped_by.push(Mat3::repeat(Real::NAN));
        self.origin.push(cm);
        self.a_qq_inv.push(None);
        self.inv_mass_seen.resize(self.members.len(), Real::NAN);
        self.mass.resize(self.members.len(), 0.0);
    }

    /// Moves the particles of every cluster, in order, towards their goal positions: one of the
    /// `iterations` iterations of a substep of `h` seconds, each member by the fraction
    /// [`fraction_over`]`(α, h / iterations)` of the way, so that the iterations of a second
    /// compound to `α` per [`RATE_TIME`]. Plastic flow (over `h`) follows the `last` iteration.
    pub fn match_shapes(&mut self, ps: &mut ParticleSet, h: Real, iterations: u32, last: bool) {
        match simd::path() {
            // SAFETY: the processor has the path.
            #[cfg(target_arch = "x86_64")]
            simd::SimdPath::Avx512 => unsafe { self.match_shapes_avx512(ps, h, iterations, last) },
            _ => self.match_shapes_scalar(ps, h, iterations, last),
        }
    }

    /// [`ClusterSet::match_shapes_scalar`] compiled for AVX-512.
    ///
    /// # Safety
    /// The processor has AVX-512F and VL.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vl")]
    unsafe fn match_shapes_avx512(
        &mut self,
        ps: &mut ParticleSet,
        h: Real,
        iterations: u32,
        last: bool,
    ) {
        self.match_shapes_scalar(ps, h, iterations, last);
    }

    /// [`ClusterSet::match_shapes`] for the processor the caller was compiled for: the same bits
    /// either way (no fused multiply-add); AVX-512's 32 registers spill fewer of the sums of a
    /// cluster's members.
    #[inline(always)]
    fn match_shapes_scalar(&mut self, ps: &mut ParticleSet, h: Real, iterations: u32, last: bool) {
        // The fraction of the way per iteration, formed again only where a cluster's stiffness
        // differs from the one before it (a body's clusters share one).
        let t = h / iterations as Real;
        let (mut stiffness, mut alpha) = (Real::NAN, 0.0);
        for c in 0..self.material.len() {
            let range = self.offsets[c]..self.offsets[c + 1];
            let members = &self.members[range.clone()];
            let mat = self.material[c];
            let sp = self.plastic[c];
            let reshaped = self.shaped_by[c] != sp;
            if reshaped {
                let rest = self.rest[range.clone()].iter();
                self.shaped[range.clone()]
                    .iter_mut()
                    .zip(rest)
                    .for_each(|(q, q0)| *q = sp * q0);
                self.shaped_by[c] = sp;
            }
            let q = &self.shaped[range.clone()];
            let (seen, m) = (
                &mut self.inv_mass_seen[range.clone()],
                &mut self.mass[range.clone()],
            );
            let sums = Moments::of(members, q, ps, self.origin[c], seen, m);
            self.origin[c] = sums.origin + sums.center;
            let rot = extract_rotation(&sums.a_pq, self.rotation[c], ROTATION_ITERATIONS);
            self.rotation[c] = rot;
            let r = *rot.to_rotation_matrix().matrix();
            if reshaped || sums.masses_changed {
                self.a_qq_inv[c] = a_qq(q, m).try_inverse();
            }
            let needs_linear = mat.beta > 0.0 || mat.plastic_yield.is_finite();
            let linear = needs_linear
                .then(|| self.a_qq_inv[c])
                .flatten()
                .map(|inv| sums.a_pq * inv)
                .map(|a| (a, a.determinant()))
                .filter(|&(_, det)| det > Real::EPSILON);
            let goal = match linear {
                Some((a, det)) if mat.beta > 0.0 => {
                    let a = a / det.cbrt();
                    a * mat.beta + r * (1.0 - mat.beta)
                }
                _ => r,
            };
            if mat.stiffness != stiffness {
                (stiffness, alpha) = (mat.stiffness, fraction_over(mat.stiffness, t));
            }
            let w = &self.inv_mass_seen[range];
            let cluster = Members {
                ids: members,
                q,
                w,
                m,
            };
            sums.move_to_goal(cluster, ps, goal, alpha, &mut self.dp);
            if let (Some((a, _)), true, true) = (linear, mat.plastic_yield.is_finite(), last) {
                self.plastic[c] = flow(sp, r.transpose() * a, &mat, h);
            }
        }
    }
}

/// A cluster's members: their world indices, rest offsets `Sₚ q⁰ᵢ` (m), inverse masses (1/kg)
/// and masses (kg).
struct Members<'a> {
    ids: &'a [u32],
    q: &'a [Vec3],
    w: &'a [Real],
    m: &'a [Real],
}

/// What a cluster's shape match needs of its members.
struct Moments {
    /// The point `o` from which the offsets `dᵢ = pᵢ − o` are taken, m: near the members, so
    /// that a motion common to all of them is kept in full (see [`center_of_mass`]).
    origin: Vec3,
    /// The centre of mass `c` less `o`, m.
    center: Vec3,
    /// `Σ mᵢ`, kg.
    mass: Real,
    /// Whether every member is free (`w > 0`).
    free: bool,
    /// `A_pq = Σ mᵢ (pᵢ − c) qᵢᵀ`.
    a_pq: Mat3,
    /// Whether some member's inverse mass is not the one of the cluster's previous match.
    masses_changed: bool,
}

impl Moments {
    /// The moments of `members` at their positions in `ps`, with rest offsets `q`, summed over
    /// the offsets `dᵢ = pᵢ − o` from `origin`. `seen` and `m` are the members' inverse masses
    /// at the previous match and their masses, formed again where the inverse mass changed.
    ///
    /// `A_pq` is `Σ mᵢ dᵢ qᵢᵀ − (c − o) (Σ mᵢ qᵢ)ᵀ`: each term of the first sum carries a
    /// rounding of `(c − o) qᵢᵀ` that the second does not take back, so `o` must be near the
    /// centre. From the first member (`c − o` the body's radius), the rotation this gave turned a
    /// rigid bunny resting on the ground until it had slid 0.26 m
    /// (`surface_contact::a_rigid_bunny_dropped_on_the_ground_comes_to_rest_at_20_to_80_substeps`);
    /// from the centre of the cluster's previous match, `c − o` is how far the centre has moved
    /// since: a substep's travel, or, once, wherever positions set in between took it.
    #[inline(always)]
    fn of(
        members: &[u32],
        q: &[Vec3],
        ps: &ParticleSet,
        origin: Vec3,
        seen: &mut [Real],
        m: &mut [Real],
    ) -> Moments {
        let (mut mass, mut free, mut masses_changed) = (0.0, true, false);
        let (mut sd, mut sq, mut sdq) = (Vec3::zeros(), Vec3::zeros(), Mat3::zeros());
        for (((&i, qi), seen), m) in members.iter().zip(q).zip(seen).zip(m) {
            let w = ps.inv_mass[i as usize];
            if w != *seen {
                (*seen, *m, masses_changed) = (w, self::mass(w), true);
            }
            let m = *m;
            free &= w > 0.0;
            let md = (ps.p[i as usize] - origin) * m;
            mass += m;
            sd += md;
            sq += qi * m;
            add_outer(&mut sdq, md, qi);
        }
        let center = sd / mass;
        Moments {
            origin,
            center,
            mass,
            free,
            a_pq: sdq - center * sq.transpose(),
            masses_changed,
        }
    }

    /// Moves each free member of the cluster the fraction `alpha` of the way to its goal
    /// `G qᵢ + c`: by `Δpᵢ = α (G qᵢ + c − pᵢ)`, less the corrections' mass-weighted mean
    /// `Σ mᵢ Δpᵢ / Σ mᵢ` when every member is free.
    ///
    /// The mean is zero in exact arithmetic (the goal turns the rest shape about the centre of
    /// mass, so matching keeps momentum), but the centre and the rest offsets are rounded at the
    /// scale of the body (about 5e-7 m for a 40 kg, 399-particle bunny), and while contacts
    /// deform a resting body every iteration repeats the same rounding: a push of 5e-7 m per
    /// iteration, which the velocity update turns into an acceleration of `10 · 5e-7 / h²`
    /// (115 m/s² at 80 substeps of 1/60 s, 10 iterations; the bunny slid off at 70 m/s). The
    /// corrections themselves are small, so their mean is exact to their own rounding.
    #[inline(always)]
    fn move_to_goal(
        &self,
        cluster: Members,
        ps: &mut ParticleSet,
        goal: Mat3,
        alpha: Real,
        dp: &mut Vec<Vec3>,
    ) {
        let Members {
            ids: members,
            q,
            w,
            m,
        } = cluster;
        dp.clear();
        let mut sum = Vec3::zeros();
        for ((&i, qi), &mi) in members.iter().zip(q).zip(m) {
            let d = ps.p[i as usize] - self.origin;
            let step = (goal * qi - (d - self.center)) * alpha;
            sum += step * mi;
            dp.push(step);
        }
        let drift = if self.free {
            sum / self.mass
        } else {
            Vec3::zeros()
        };
        for ((&i, dp), &w) in members.iter().zip(dp.iter()).zip(w) {
            if w > 0.0 {
                ps.p[i as usize] += dp - drift;
            }
        }
    }
}

/// `A_qq = Σ mᵢ qᵢ qᵢᵀ` of rest offsets `q` with masses `m`.
fn a_qq(q: &[Vec3], m: &[Real]) -> Mat3 {
    let mut a = Mat3::zeros();
    for (qi, &mi) in q.iter().zip(m) {
        add_outer(&mut a, qi * mi, qi);
    }
    a
}

/// `a += u bᵀ`, column by column.
#[inline(always)]
fn add_outer(a: &mut Mat3, u: Vec3, b: &Vec3) {
    for j in 0..3 {
        let mut column = a.column_mut(j);
        column += u * b[j];
    }
}

/// The plastic deformation after one substep of `h` s with total deformation `s` (Müller et al.
/// 2005, sec. 4.4): above the yield, `Sₚ ← (I + h c_creep (S − I)) Sₚ`, clamped to `|Sₚ − I| ≤
/// c_max` and scaled to unit determinant (plastic flow keeps the volume).
fn flow(sp: Mat3, s: Mat3, mat: &ClusterMaterial, h: Real) -> Mat3 {
    let i = Mat3::identity();
    if (s - i).norm() <= mat.plastic_yield {
        return sp;
    }
    let mut sp = (i + (s - i) * (h * mat.creep)) * sp;
    let d = (sp - i).norm();
    if d > mat.max {
        sp = i + (sp - i) * (mat.max / d);
    }
    let det = sp.determinant();
    if det > Real::EPSILON {
        sp / det.cbrt()
    } else {
        i
    }
}

/// The centre of mass of `members` at positions `x` with masses `m`, m: the first member's
/// position plus the mass-weighted mean of the offsets from it. Summing `mᵢ xᵢ` directly loses
/// a motion common to all members that is small against the sum's rounding (399 particles
/// 1.5 m above the origin: each term's change under a fall of `g h²` = 7 µm in a 1/1200 s
/// substep was below half an ulp of the partial sum, the centre did not move, and the rigid
/// body hung in the air); the offsets are small, and the first position carries the motion.
fn center_of_mass(members: &[u32], x: &[Vec3], m: &[Real]) -> Vec3 {
    let origin = members.first().map_or(Vec3::zeros(), |&i| x[i as usize]);
    let total: Real = m.iter().sum();
    let offsets = members.iter().zip(m);
    origin
        + offsets
            .map(|(&i, mi)| (x[i as usize] - origin) * *mi)
            .sum::<Vec3>()
            / total
}

/// The mass, kg, that a pinned member (`w = 0`) counts with: very heavy.
const PINNED_MASS: Real = 1e6;

/// Mass of a member in kg (pinned: [`PINNED_MASS`]).
fn mass(inv_mass: Real) -> Real {
    if inv_mass > 0.0 {
        1.0 / inv_mass
    } else {
        PINNED_MASS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rotation_error(q: Quat, expected: &Mat3) -> Real {
        (q.to_rotation_matrix().matrix() - expected).norm()
    }

    #[test]
    fn rotations_are_their_own_rotational_part() {
        for (axis, angle) in [
            (Vec3::x(), 0.3),
            (Vec3::new(1.0, 2.0, -1.0), 2.5),
            (Vec3::z(), 3.1),
        ] {
            let r = Quat::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle);
            let m = *r.to_rotation_matrix().matrix();
            assert!(rotation_error(extract_rotation(&m, Quat::identity(), 100), &m) < 1e-4);
        }
    }

    #[test]
    fn stretched_rotation_gives_the_rotation() {
        let r = Quat::from_axis_angle(
            &nalgebra::Unit::new_normalize(Vec3::new(0.2, 1.0, 0.3)),
            1.0,
        );
        let m = *r.to_rotation_matrix().matrix();
        let a = m * Mat3::from_diagonal(&Vec3::new(2.0, 0.5, 1.3));
        assert!(rotation_error(extract_rotation(&a, Quat::identity(), 100), &m) < 1e-4);
    }

    #[test]
    fn nearly_singular_and_reflected_matrices_give_proper_rotations() {
        let flat = Mat3::from_diagonal(&Vec3::new(1.0, 1.0, 1e-7));
        let rank_one = Vec3::new(1.0, 2.0, 3.0) * Vec3::new(0.5, -1.0, 0.2).transpose();
        let reflection = Mat3::from_diagonal(&Vec3::new(1.0, 1.0, -1.0));
        for a in [flat, rank_one, reflection, Mat3::zeros()] {
            let q = extract_rotation(&a, Quat::identity(), 100);
            let r = q.to_rotation_matrix();
            assert!((r.matrix().determinant() - 1.0).abs() < 1e-5, "{a}");
            assert!(r.matrix().iter().all(|x| x.is_finite()));
        }
        let q = extract_rotation(&flat, Quat::identity(), 100);
        assert!(rotation_error(q, &Mat3::identity()) < 1e-4);
    }

    /// A rigid cluster of 400 particles of 5 g, 1.5 m above the origin, all moved down by
    /// `g h²` of a 1/1200 s substep (6.8 µm): the goal is the moved shape, so matching moves
    /// nothing. Before the centre of mass was summed from offsets, the sum of `mᵢ pᵢ` did not
    /// change, and matching pulled every particle back up to where it started.
    #[test]
    fn a_small_common_motion_of_many_particles_is_kept() {
        let mut ps = ParticleSet::default();
        for n in 0..400 {
            let c = Vec3::new((n % 8) as Real, ((n / 8) % 5) as Real, (n / 40) as Real);
            ps.push(c * 0.05 + Vec3::new(-0.2, 1.3, -0.25), 200.0, 0.01, 0);
        }
        let mut set = ClusterSet::default();
        set.push(
            &(0..400).collect::<Vec<_>>(),
            &ps.x,
            &ps.inv_mass,
            ClusterMaterial::default(),
        );
        let h = 1.0 / 1200.0;
        let drop = 9.81 * h * h;
        for p in &mut ps.p {
            p.y -= drop;
        }
        let moved = ps.p.clone();
        set.match_shapes(&mut ps, h, 1, true);
        let worst =
            ps.p.iter()
                .zip(&moved)
                .map(|(p, q)| (p - q).norm())
                .fold(0.0, Real::max);
        // At most one rounding of a coordinate in [1, 2) m, 0.12 µm (the drop is 57 of them);
        // on main the centre lagged by 3.
        assert!(
            worst <= Real::EPSILON,
            "a particle moved by {worst} m of the {drop} m drop"
        );
    }

    #[test]
    fn matching_a_deformed_cluster_keeps_its_momentum_to_the_rounding_of_a_coordinate() {
        // 400 particles of 0.1 kg in a 35 x 20 x 45 cm block resting on the ground (as a body's
        // lattice), the bottom layer pushed up 1 mm as contacts do.
        let mut ps = ParticleSet::default();
        for n in 0..400 {
            let c = Vec3::new((n % 8) as Real, ((n / 8) % 5) as Real, (n / 40) as Real);
            ps.push(c * 0.05 + Vec3::new(0.13, 0.01, -0.21), 10.0, 0.01, 0);
        }
        let mut set = ClusterSet::default();
        let members: Vec<u32> = (0..400).collect();
        set.push(&members, &ps.x, &ps.inv_mass, ClusterMaterial::default());
        for (n, p) in ps.p.iter_mut().enumerate() {
            if (n / 8) % 5 == 0 {
                p.y += 1e-3 * (1.0 + (n % 3) as Real);
            }
        }
        let before = ps.p.clone();
        set.match_shapes(&mut ps, 1.0 / 4800.0, 10, true);
        let push: nalgebra::Vector3<f64> =
            ps.p.iter()
                .zip(&before)
                .map(|(p, q)| (p - q).cast::<f64>() * 0.1)
                .sum();
        // The mean push, Σ mᵢ Δpᵢ / M: each particle's move is rounded to its coordinates (at
        // most half an ulp of 0.5 m, 3e-8 m), and 400 independent roundings average to within
        // three standard deviations, 3 · 3e-8 / √400 m. The rounded centre and rest offsets
        // pushed the whole block by 8.6e-8 m.
        let half_ulp = 0.5 * (0.5 * Real::EPSILON) as f64;
        let mean = push.norm() / 40.0;
        assert!(
            mean < 3.0 * half_ulp / 20.0,
            "the cluster was pushed by {mean} m on average"
        );
    }

    fn cube_cluster(material: ClusterMaterial) -> (ParticleSet, ClusterSet) {
        let mut ps = ParticleSet::default();
        for n in 0..8 {
            let x = Vec3::new(
                (n & 1) as Real,
                ((n >> 1) & 1) as Real,
                (n >> 2) as Real * 2.0,
            );
            ps.push(x, 1.0 + n as Real * 0.1, 0.01, 0);
        }
        let mut set = ClusterSet::default();
        set.push(&(0..8).collect::<Vec<_>>(), &ps.x, &ps.inv_mass, material);
        (ps, set)
    }

    #[test]
    fn rigidly_moved_cluster_gets_no_correction() {
        let (mut ps, mut set) = cube_cluster(ClusterMaterial {
            beta: 0.5,
            ..Default::default()
        });
        let r = Quat::from_axis_angle(
            &nalgebra::Unit::new_normalize(Vec3::new(1.0, -2.0, 0.5)),
            2.0,
        );
        let t = Vec3::new(3.0, -1.0, 0.5);
        for i in 0..8 {
            ps.p[i] = r * ps.x[i] + t;
        }
        let before = ps.p.clone();
        set.match_shapes(&mut ps, 0.01, 1, true);
        for (a, b) in ps.p.iter().zip(&before) {
            assert!((a - b).norm() < 1e-4, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn deformed_cluster_returns_to_a_rigid_shape_and_keeps_its_centre() {
        let (mut ps, mut set) = cube_cluster(ClusterMaterial::default());
        ps.p[3] += Vec3::new(0.4, -0.3, 0.2);
        ps.p[6] -= Vec3::new(0.1, 0.5, 0.0);
        let w = ps.inv_mass.clone();
        let cm = |p: &[Vec3]| (0..8).map(|i| p[i] / w[i]).sum::<Vec3>();
        let before = cm(&ps.p);
        set.match_shapes(&mut ps, 0.01, 1, true);
        assert!((cm(&ps.p) - before).norm() < 1e-4);
        for a in 0..8 {
            for b in 0..8 {
                let d = ((ps.p[a] - ps.p[b]).norm() - (ps.x[a] - ps.x[b]).norm()).abs();
                assert!(d < 1e-4, "{a}-{b} off by {d}");
            }
        }
    }

    #[test]
    fn a_changed_plastic_deformation_is_the_shape_matched() {
        // Matched once as it is, then with `Sₚ` set by hand (volume kept): the cluster takes
        // the deformed rest shape, its distances those of `Sₚ q⁰`.
        let (mut ps, mut set) = cube_cluster(ClusterMaterial::default());
        set.match_shapes(&mut ps, 0.01, 1, true);
        let sp = Mat3::from_diagonal(&Vec3::new(1.25, 0.8, 1.0));
        set.plastic[0] = sp;
        set.match_shapes(&mut ps, 0.01, 1, true);
        for a in 0..8 {
            for b in 0..8 {
                let expected = (sp * (ps.x[a] - ps.x[b])).norm();
                let d = ((ps.p[a] - ps.p[b]).norm() - expected).abs();
                assert!(d < 1e-4, "{a}-{b} off by {d}");
            }
        }
    }

    #[test]
    fn stiffness_does_not_depend_on_the_iteration_count() {
        let material = ClusterMaterial {
            stiffness: 0.3,
            ..Default::default()
        };
        let deform = |ps: &mut ParticleSet| {
            ps.p[3] += Vec3::new(0.4, -0.3, 0.2);
            ps.p[6] -= Vec3::new(0.1, 0.5, 0.0);
        };
        let (mut one, mut set) = cube_cluster(material);
        deform(&mut one);
        set.match_shapes(&mut one, RATE_TIME, 1, true);
        let (mut four, mut set) = cube_cluster(material);
        deform(&mut four);
        for k in 0..4 {
            set.match_shapes(&mut four, RATE_TIME, 4, k == 3);
        }
        // A rigid goal does not move as the members approach it, so four quarter steps compound
        // to one step of α: 30% of the way.
        for (a, b) in one.p.iter().zip(&four.p) {
            assert!((a - b).norm() < 1e-5, "{a:?} vs {b:?}");
        }
        let (mut deformed, _) = cube_cluster(material);
        deform(&mut deformed);
        assert!(
            (one.p[3] - deformed.p[3]).norm() > 0.01,
            "the cluster moved"
        );
    }

    /// A cluster matched once, then changed (a member pinned, or the goal made linear), is
    /// matched as a cluster built in its changed state: what it keeps between matches
    /// (`A_qq⁻¹`, the masses) follows the change.
    #[test]
    fn a_cluster_changed_between_matches_is_matched_as_a_new_one() {
        let linear = ClusterMaterial {
            beta: 0.8,
            ..Default::default()
        };
        for (before, pin) in [(linear, true), (ClusterMaterial::default(), false)] {
            let (mut ps, mut kept) = cube_cluster(before);
            kept.match_shapes(&mut ps, 0.01, 1, true);
            kept.material[0] = linear;
            let (mut fresh_ps, mut fresh) = cube_cluster(linear);
            for ps in [&mut ps, &mut fresh_ps] {
                if pin {
                    ps.inv_mass[5] = 0.0;
                }
                ps.p[3] += Vec3::new(0.4, -0.3, 0.2);
                ps.p[6] -= Vec3::new(0.1, 0.5, 0.0);
            }
            fresh_ps.p.clone_from(&ps.p);
            kept.match_shapes(&mut ps, 0.01, 1, true);
            fresh.match_shapes(&mut fresh_ps, 0.01, 1, true);
            for (a, b) in ps.p.iter().zip(&fresh_ps.p) {
                assert!((a - b).norm() < 1e-5, "pinned {pin}: {a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn plastic_flow_keeps_a_permanent_deformation() {
        let (mut ps, mut set) = cube_cluster(ClusterMaterial {
            stiffness: 0.5,
            plastic_yield: 0.05,
            creep: 50.0,
            max: 1.0,
            ..Default::default()
        });
        for i in 0..8 {
            ps.p[i] = Vec3::new(ps.x[i].x * 1.5, ps.x[i].y, ps.x[i].z / 1.5);
        }
        set.match_shapes(&mut ps, 0.01, 1, true);
        assert!((set.plastic[0] - Mat3::identity()).norm() > 0.01);
        assert!((set.plastic[0].determinant() - 1.0).abs() < 1e-4);
    }
}
