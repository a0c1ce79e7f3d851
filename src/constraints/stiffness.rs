//! The four stiffness models and the one projection formula they share.
//!
//! Every constraint family is projected with the XPBD update of Macklin, Müller and Chentanez
//! 2016, "XPBD: Position-Based Simulation of Compliant Constrained Dynamics", eq. 18 with the
//! damping of eq. 26:
//!
//! ```text
//! Δλ  = (−C − α̃ λ − γ ∇C·(x − xⁿ)) / ((1 + γ) Σ wᵢ |∇ᵢC|² + α̃),   α̃ = α / h²,  γ = α β / h
//! Δxᵢ = s · wᵢ ∇ᵢC Δλ
//! ```
//!
//! Plain PBD (Müller et al. 2007, "Position Based Dynamics") is the same update with `α = 0` and
//! the correction scaled by the stiffness `s = k`; the iteration-corrected variant uses
//! `s = 1 − (1 − k)^(1/n)` for `n` solver iterations (ibid., sec. 3.3). The `elastic` model
//! gives a physical modulus instead (axial stiffness `EA`, membrane stiffness `E t`, plate bending
//! stiffness `D`); a body turns it into an XPBD compliance per element, `α = 1 / (modulus · g)`,
//! from the element's rest geometry `g` (see `docs/elastic.md` and
//! [`Stiffness::per_element`]), so the material does not change when the mesh is refined.
//! Folding the models into one set of per-material coefficients keeps the inner loops free of
//! branches on the model.

use crate::math::{Lanes, Real};
pub use crate::validate::StiffnessKeys;
use crate::validate::{BuildError, stiffness_model};
use std::collections::HashMap;

/// How stiff a constraint family is (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stiffness {
    /// PBD stiffness `k` in [0, 1]: the correction is scaled by `k` every iteration.
    Pbd {
        /// Stiffness in [0, 1].
        k: Real,
    },
    /// PBD stiffness `k` in [0, 1], corrected for the iteration count: `k' = 1 − (1 − k)^(1/n)`.
    PbdCorrected {
        /// Stiffness in [0, 1], as if the solver ran one iteration.
        k: Real,
    },
    /// XPBD compliance `α` ≥ 0 in m/N (0 is rigid) and constraint damping `β` ≥ 0 in s.
    Xpbd {
        /// Compliance `α` ≥ 0, the inverse stiffness (m/N for a distance).
        compliance: Real,
        /// Constraint damping `β` ≥ 0, s.
        damping: Real,
    },
    /// A physical modulus > 0, whose unit depends on the constraint it is given to: axial
    /// stiffness `EA` in N for rope segments, membrane stiffness `E t` in N/m for cloth stretch and
    /// shear, plate bending stiffness `D` in N·m for cloth bending; and constraint damping `β` ≥ 0
    /// in s. Each element's compliance comes from its rest geometry (see
    /// [`Stiffness::per_element`]).
    Elastic {
        /// The modulus, N, N/m or N·m (see above).
        stiffness: Real,
        /// Constraint damping `β` ≥ 0, s.
        damping: Real,
    },
    /// An isotropic solid of Young's modulus `E` > 0 in Pa and Poisson ratio `ν` in (−1, ½), for
    /// soft bodies' tets: each tet becomes the XPBD Neo-Hookean pair of constraints of Macklin
    /// and Müller 2021 (see [`NeoHookeanSet`](super::neo_hookean::NeoHookeanSet)); constraint
    /// damping `β` ≥ 0 in s. Written `{ model = "elastic", youngs = E, poisson = ν }`.
    ElasticSolid {
        /// Young's modulus `E` > 0, Pa.
        youngs: Real,
        /// Poisson ratio `ν` in (−1, ½).
        poisson: Real,
        /// Constraint damping `β` ≥ 0, s.
        damping: Real,
    },
}

impl Default for Stiffness {
    /// Rigid: XPBD with zero compliance.
    fn default() -> Self {
        Stiffness::Xpbd {
            compliance: 0.0,
            damping: 0.0,
        }
    }
}

/// Coefficients of the projection formula for one material in one substep (or, with `T` a SIMD
/// vector, for the constraints of a batch, one per lane).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Coeffs<T = Real> {
    /// `α̃ = α / h²`.
    pub alpha_tilde: T,
    /// `γ = α β / h`; zero for PBD and undamped XPBD.
    pub gamma: T,
    /// Scale of the position correction: `k`, `k'`, or 1 for XPBD.
    pub scale: T,
    /// Whether a distance constraint is projected along its direction at the substep's start
    /// (SHAKE, [`SolverParams::shake`](crate::SolverParams::shake)); the other kinds ignore it.
    pub shake: bool,
}

impl Coeffs {
    /// Whether the projection reads the particles' displacements `p − x` in the substep: for
    /// XPBD damping, or for SHAKE's start direction.
    pub fn reads_displacements(&self) -> bool {
        self.gamma != 0.0 || self.shake
    }
}

impl<T: Lanes> Coeffs<T> {
    /// The multiplier change `delta_lambda` that a constraint of these coefficients keeps: all
    /// of it, except for a rigid material (`α̃ = 0` and `γ = 0`, so PBD and undamped XPBD of
    /// compliance 0), whose `Δλ` does not depend on `λ`: its multiplier is not kept and stays 0,
    /// so that the batched kernels neither read nor write it (one stream of the family's arrays
    /// fewer).
    #[inline(always)]
    pub fn kept(&self, delta_lambda: T) -> T {
        (self.alpha_tilde + self.gamma).select_gt(T::splat(0.0), delta_lambda, T::splat(0.0))
    }
}

impl Coeffs {
    /// Whether the material keeps no multiplier (see [`Coeffs::kept`]).
    pub fn is_rigid(&self) -> bool {
        self.kept(1.0) == 0.0
    }
}

#[cfg(test)]
impl Coeffs {
    /// Rigid XPBD (compliance 0) for a 10 ms substep: the coefficients the kernels' unit tests
    /// use.
    pub(crate) fn rigid() -> Coeffs {
        Stiffness::default().coeffs(0.01, 1)
    }
}

impl Stiffness {
    /// The stiffness a scene table or a binding's dictionary names: `model` (`pbd`,
    /// `pbd_corrected`, `xpbd` or `elastic`) with its `keys`, checked as a scene file's are (a
    /// key the model does not take is an error at that key).
    pub fn from_keys(model: &str, keys: StiffnessKeys) -> Result<Stiffness, BuildError> {
        stiffness_model(model, keys)
    }

    /// The model's name in scene files: `pbd`, `pbd_corrected`, `xpbd` or `elastic`.
    pub fn model_name(&self) -> &'static str {
        match self {
            Stiffness::Pbd { .. } => "pbd",
            Stiffness::PbdCorrected { .. } => "pbd_corrected",
            Stiffness::Xpbd { .. } => "xpbd",
            Stiffness::Elastic { .. } | Stiffness::ElasticSolid { .. } => "elastic",
        }
    }

    /// The stiffness of one element whose rest geometry gives it `g` times the modulus as its
    /// stiffness (`g` = 1/L for a rope segment of rest length L, see `docs/elastic.md` for the
    /// others): for `elastic`, XPBD with compliance `1 / (stiffness · g)`, rounded to 8
    /// significant bits (within 0.2 %) so that elements of nearly equal geometry share a
    /// material; the other models are returned as they are.
    pub fn per_element(self, g: Real) -> Stiffness {
        match self {
            Stiffness::Elastic { stiffness, damping } => Stiffness::Xpbd {
                compliance: round_to_8_bits(1.0 / (stiffness * g)),
                damping,
            },
            other => other,
        }
    }

    /// The coefficients for a substep of `h` seconds with `iterations` solver iterations.
    pub fn coeffs(&self, h: Real, iterations: u32) -> Coeffs {
        match *self {
            Stiffness::Pbd { k } => Coeffs {
                alpha_tilde: 0.0,
                gamma: 0.0,
                scale: k,
                shake: false,
            },
            Stiffness::PbdCorrected { k } => Coeffs {
                alpha_tilde: 0.0,
                gamma: 0.0,
                scale: 1.0 - (1.0 - k).powf(1.0 / iterations.max(1) as Real),
                shake: false,
            },
            Stiffness::Xpbd {
                compliance,
                damping,
            } => Coeffs {
                alpha_tilde: compliance / (h * h),
                gamma: compliance * damping / h,
                scale: 1.0,
                shake: false,
            },
            Stiffness::Elastic { .. } => self.per_element(1.0).coeffs(h, iterations),
            // A solid's tets take per-element materials from its Lamé parameters; on its own it
            // is the elastic modulus `E` of a unit element.
            Stiffness::ElasticSolid {
                youngs, damping, ..
            } => Stiffness::Elastic {
                stiffness: youngs,
                damping,
            }
            .coeffs(h, iterations),
        }
    }

    /// The model and its numbers, as bits: equal keys are equal stiffnesses.
    fn key(&self) -> (u8, [u32; 3]) {
        let (model, numbers) = match *self {
            Stiffness::Pbd { k } => (0, [k, 0.0, 0.0]),
            Stiffness::PbdCorrected { k } => (1, [k, 0.0, 0.0]),
            Stiffness::Xpbd {
                compliance,
                damping,
            } => (2, [compliance, damping, 0.0]),
            Stiffness::Elastic { stiffness, damping } => (3, [stiffness, damping, 0.0]),
            Stiffness::ElasticSolid {
                youngs,
                poisson,
                damping,
            } => (4, [youngs, poisson, damping]),
        };
        (model, numbers.map(Real::to_bits))
    }
}

/// `v` rounded to the nearest value with 8 significant bits (a relative change below 2⁻⁹).
fn round_to_8_bits(v: Real) -> Real {
    const DROPPED: u32 = Real::MANTISSA_DIGITS - 8;
    Real::from_bits((v.to_bits() + (1 << (DROPPED - 1))) & !((1 << DROPPED) - 1))
}

/// The Lagrange multiplier update `Δλ` of the module docs.
///
/// `c` is the constraint value, `w_grad_sq` is `Σ wᵢ |∇ᵢC|²`, `grad_dot_dx` is `∇C·(x − xⁿ)`
/// (`None` when the family has no damping, `γ = 0`), `lambda` the multiplier accumulated so far
/// in this substep. Returns 0 when the constraint cannot move (all particles pinned, or a
/// degenerate gradient) and `c` is finite. Computes one constraint, or one per lane of a batch
/// (see [`Lanes`]).
///
/// The terms that do not depend on `c`, and the reciprocal of the denominator, are computed
/// first, so that only a subtraction and a multiplication wait for `c`, the end of a kernel's
/// longest chain of dependent operations (see `docs/performance.md`).
#[inline(always)]
pub fn delta_lambda<T: Lanes>(
    c: T,
    w_grad_sq: T,
    grad_dot_dx: Option<T>,
    lambda: T,
    k: &Coeffs<T>,
) -> T {
    delta_lambda_scaled(c, w_grad_sq, T::splat(1.0), grad_dot_dx, lambda, k, None).0
}

/// [`delta_lambda`] with `Σ wᵢ|∇ᵢC|² = q / scale` given as `q` and `scale > 0` (0 where the
/// constraint cannot move), for a kernel whose gradient carries a common denominator: the update
/// is then `Δλ = r scale / ((1 + γ) q + α̃ scale)`, one division, and `Δλ / scale` comes with
/// it, which such a kernel's corrections need. The residual `r = −C − α̃λ − γ∇C·(x − xⁿ)` is
/// clamped to `±bound` when one is given: one projection then moves the linearized constraint by
/// at most `bound`, while a converged constraint (residual 0, compliant equilibria included) is
/// left as it is. Returns `(Δλ, Δλ / scale)`; with `scale = 1` the bits of [`delta_lambda`].
#[inline(always)]
pub fn delta_lambda_scaled<T: Lanes>(
    c: T,
    q: T,
    scale: T,
    grad_dot_dx: Option<T>,
    lambda: T,
    k: &Coeffs<T>,
    bound: Option<T>,
) -> (T, T) {
    let denom = (T::splat(1.0) + k.gamma) * q + k.alpha_tilde * scale;
    let known = match grad_dot_dx {
        Some(g) => k.alpha_tilde * lambda + k.gamma * g,
        None => k.alpha_tilde * lambda,
    };
    let zero = T::splat(0.0);
    let inv_denom = denom.select_gt(T::splat(Real::EPSILON) * scale, T::splat(1.0) / denom, zero);
    let inv_denom = scale.select_gt(zero, inv_denom, zero);
    let residual = -c - known;
    let residual = match bound {
        Some(b) => {
            let r = residual.select_gt(b, b, residual);
            (-b).select_gt(r, -b, r)
        }
        None => residual,
    };
    let per_scale = residual * inv_denom;
    (per_scale * scale, per_scale)
}

/// The stiffness materials used by one constraint family, and their coefficients for the
/// current substep. Constraints refer to a material by its index.
#[derive(Clone, Debug, Default)]
pub struct MaterialTable {
    /// Stiffness of each material.
    pub stiffness: Vec<Stiffness>,
    /// Coefficients of each material for the current substep (see [`MaterialTable::resolve`]).
    pub coeffs: Vec<Coeffs>,
    /// The index of each stiffness added by [`MaterialTable::add_element`].
    shared: HashMap<(u8, [u32; 3]), u16>,
}

impl MaterialTable {
    /// Adds a material and returns its index.
    pub fn add(&mut self, stiffness: Stiffness) -> u16 {
        self.stiffness.push(stiffness);
        self.coeffs.push(Coeffs::default());
        u16::try_from(self.stiffness.len() - 1).expect("at most 65536 materials per family")
    }

    /// The material of an element of geometry `g` made of `stiffness` (see
    /// [`Stiffness::per_element`]): elements with equal stiffness share one material.
    pub fn add_element(&mut self, stiffness: Stiffness, g: Real) -> u16 {
        let s = stiffness.per_element(g);
        match self.shared.get(&s.key()) {
            Some(&m) => m,
            None => {
                let m = self.add(s);
                self.shared.insert(s.key(), m);
                m
            }
        }
    }

    /// Computes every material's coefficients for a substep of `h` seconds.
    pub fn resolve(&mut self, h: Real, iterations: u32) {
        for (c, s) in self.coeffs.iter_mut().zip(&self.stiffness) {
            *c = s.coeffs(h, iterations);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_constraint_gets_minus_c_over_w_plus_alpha_tilde() {
        let h = 0.01;
        let k = Stiffness::Xpbd {
            compliance: 1e-3,
            damping: 0.0,
        }
        .coeffs(h, 10);
        assert!((k.alpha_tilde - 10.0).abs() < 1e-4);
        let dl = delta_lambda(0.2, 2.0, None, 0.0, &k);
        assert!((dl - (-0.2 / (2.0 + 10.0))).abs() < 1e-7);
    }

    #[test]
    fn accumulated_lambda_resists_further_change() {
        let k = Coeffs {
            alpha_tilde: 4.0,
            gamma: 0.0,
            scale: 1.0,
            shake: false,
        };
        // At the XPBD fixed point −C = α̃λ the update is zero.
        assert_eq!(delta_lambda(-4.0 * 0.25, 1.0, None, 0.25, &k), 0.0);
    }

    #[test]
    fn pbd_corrected_gives_k_after_n_iterations() {
        let (k, n) = (0.5, 8);
        let s = Stiffness::PbdCorrected { k }.coeffs(0.01, n).scale;
        // n corrections of the remaining error by s leave (1 − s)^n of it: exactly 1 − k.
        assert!(((1.0 - s).powi(n as i32) - (1.0 - k)).abs() < 1e-6);
        assert_eq!(Stiffness::Pbd { k }.coeffs(0.01, n).scale, k);
    }

    #[test]
    fn pinned_constraint_does_not_move() {
        assert_eq!(delta_lambda(1.0, 0.0, None, 0.0, &Coeffs::default()), 0.0);
    }

    #[test]
    fn damping_opposes_motion_along_the_gradient() {
        let k = Stiffness::Xpbd {
            compliance: 1e-2,
            damping: 1.0,
        }
        .coeffs(0.01, 1);
        assert!(k.gamma > 0.0);
        assert!(delta_lambda(0.0, 1.0, Some(0.1), 0.0, &k) < 0.0);
    }
}
