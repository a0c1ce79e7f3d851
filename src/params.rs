//! Solver settings of a world.

use crate::math::{Real, Vec3};
use crate::validate::{self, Checked};
use crate::wind::Gust;

/// The time over which a body's `damping` and a shape-matching cluster's `stiffness`, both
/// fractions in [0, 1], act as given, s: 1/600 s, a substep at the default settings (1/60 s
/// frames of 10 substeps). The solver applies them in pieces ([`fraction_over`]) so that their
/// effect per second does not depend on the substep or iteration count.
pub const RATE_TIME: Real = 1.0 / 600.0;

/// The fraction to apply over `t` seconds so that applying it every `t` compounds to
/// `fraction` per [`RATE_TIME`]: `1 − (1 − fraction)^(t / RATE_TIME)` (1 stays 1, 0 stays 0).
pub fn fraction_over(fraction: Real, t: Real) -> Real {
    1.0 - (1.0 - fraction).powf(t / RATE_TIME)
}

/// How the constraint projection visits the constraints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SolverMethod {
    /// Serial Gauss-Seidel in build order: each constraint sees the corrections of the ones
    /// before it.
    #[default]
    GaussSeidel,
    /// Graph-colored Gauss-Seidel: each family cut into blocks, the blocks of one color in
    /// parallel, colors in order; the result does not depend on the thread count.
    Colored,
    /// Jacobi: all corrections of a family computed from the same positions (in parallel, the
    /// blocks of a color at once), relaxed per constraint and applied together, accelerated by
    /// Chebyshev extrapolation (Wang 2015); the result does not depend on the thread count.
    Jacobi,
    /// [`Colored`](SolverMethod::Colored) Gauss-Seidel accelerated by Chebyshev extrapolation
    /// (Wang 2015) from the third iteration of a substep on: the same passes, then every
    /// position and multiplier moved past its iterate as the semi-iterative method says. On W
    /// it leaves about a third of `colored`'s stretch at the same iterations, for one more pass
    /// over the particles per iteration (see `docs/performance.md`); the result does not depend
    /// on the thread count.
    ColoredChebyshev,
    /// [`Colored`](SolverMethod::Colored) Gauss-Seidel after a global step: each substep first
    /// moves the particles by one implicit step of the isometric bending energy, solved for
    /// the whole cloth at once with a sparse Cholesky factorization made once (projective
    /// dynamics' global step, Bouaziz et al. 2014), and the iterations then project every other
    /// family. A stiff plate reaches its statics at any resolution, where the sweeps' support
    /// travels a hinge per sweep; other bending (dihedral, cross-distance) and isometric
    /// bending that is rigid, PBD or damped are projected as `colored` does. The result does not
    /// depend on the thread count.
    ColoredGlobal,
}

impl SolverMethod {
    /// The name used in scene files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SolverMethod::GaussSeidel => "gauss-seidel",
            SolverMethod::Colored => "colored",
            SolverMethod::Jacobi => "jacobi",
            SolverMethod::ColoredChebyshev => "colored-chebyshev",
            SolverMethod::ColoredGlobal => "colored-global",
        }
    }

    /// Parses a scene-file or command-line name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Every method.
    pub const ALL: [SolverMethod; 5] = [
        SolverMethod::GaussSeidel,
        SolverMethod::Colored,
        SolverMethod::Jacobi,
        SolverMethod::ColoredChebyshev,
        SolverMethod::ColoredGlobal,
    ];

    /// Every method's name, for messages.
    pub const NAMES: &'static [&'static str] = &[
        "gauss-seidel",
        "colored",
        "jacobi",
        "colored-chebyshev",
        "colored-global",
    ];
}

/// Solver settings. Defaults are those of the `[solver]` table of a scene file.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverParams {
    /// Frame time step, s (default 1/60).
    pub dt: Real,
    /// Substeps per frame (default 10).
    pub substeps: u32,
    /// Constraint iterations per substep (default 10).
    pub iterations: u32,
    /// Projection method (default Gauss-Seidel).
    pub method: SolverMethod,
    /// Gravity, m/s² (default (0, −9.81, 0)).
    pub gravity: Vec3,
    /// Global linear velocity damping, 1/s (default 0): `v ← v·exp(−damping·h)` every substep.
    pub damping: Real,
    /// Wind velocity, m/s (default 0), or the mean wind when there are gusts; acts on cloth
    /// through its `drag` and `lift`.
    pub wind: Vec3,
    /// Gusts on top of `wind` (default none: a steady wind).
    pub gust: Option<Gust>,
    /// Largest displacement of a particle in one substep, as a fraction of its radius
    /// (default 0: no limit); see the stage of position prediction (`src/stages/predict.rs`).
    pub max_displacement: Real,
    /// Largest strain `|ℓ − d| / d` of any stretch constraint (cloth stretch and shear, rope
    /// segments, soft-body edges) before the run stops as diverging with
    /// [`SimError::Diverged`](crate::SimError::Diverged) (default 10: a body stretched to 11 times
    /// its rest length is blowing up, not simulating). An edge shorter than 1/32 of its body's
    /// rest size has its stretch measured against that length instead
    /// ([`STRAIN_FLOOR`](crate::bodies::STRAIN_FLOOR)): a sliver's edge or an edge at the pins
    /// of a fine cloth stretched far beyond its own length in a step that leaves the body's
    /// shape as it was is not a blow-up.
    pub max_strain: Real,
    /// Project distance constraints (cloth stretch, shear and cross-distance bending, rope
    /// segments, soft-body edges) along their direction at the substep's start, as SHAKE does
    /// (Ryckaert, Ciccotti and Berendsen 1977), instead of their current one (default false).
    /// The step is then the symplectic Störmer-Verlet step with constraints: a swinging chain
    /// keeps its energy as the iterations converge, where the default projection, an implicit
    /// step, dissipates it at any substep. For ropes and chains: a cloth's loss is mostly the
    /// jerk of slack rows pulled taut, which it does not change, and a body under high tension
    /// (a pressurised surface, a cloth pressed onto a collider) can gain energy or stretch
    /// further (`docs/performance.md`, "Energy").
    pub shake: bool,
}

impl Default for SolverParams {
    fn default() -> Self {
        SolverParams {
            dt: 1.0 / 60.0,
            substeps: 10,
            iterations: 10,
            method: SolverMethod::GaussSeidel,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            damping: 0.0,
            wind: Vec3::zeros(),
            gust: None,
            max_displacement: 0.0,
            max_strain: 10.0,
            shake: false,
        }
    }
}

impl SolverParams {
    /// Substep length `h = dt / substeps`, s.
    pub fn h(&self) -> Real {
        self.dt / self.substeps as Real
    }

    /// Checks every setting's range (the keys are those of a scene's `[solver]` table).
    pub fn validate(&self) -> Checked {
        validate::positive(self.dt, "dt", "a time step in seconds")?;
        validate::at_least(self.substeps, 1, "substeps")?;
        validate::at_least(self.iterations, 1, "iterations")?;
        validate::finite(&self.gravity, "gravity")?;
        validate::non_negative(self.damping, "damping")?;
        validate::finite(&self.wind, "wind")?;
        if let Some(gust) = &self.gust {
            gust.validate()?;
        }
        validate::non_negative(self.max_displacement, "max_displacement")?;
        validate::positive(self.max_strain, "max_strain", "a strain")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_names_round_trip() {
        for m in SolverMethod::ALL {
            assert_eq!(SolverMethod::from_name(m.name()), Some(m));
        }
        assert_eq!(
            SolverMethod::NAMES,
            SolverMethod::ALL.map(SolverMethod::name)
        );
        assert_eq!(SolverMethod::from_name("red-black"), None);
    }
}
