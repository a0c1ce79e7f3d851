//! Per-frame statistics of a world, as written to the JSON report.

use crate::math::{Real, Vec3};
use crate::world::World;
use serde::Serialize;
use std::time::Instant;

/// Statistics of one body.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BodyStats {
    /// The body's name.
    pub name: String,
    /// Current volume, m³: the tet volume of a `tets` or `clusters` soft body, the enclosed
    /// volume of a `surface` one (0 for cloth and rope).
    pub volume: Real,
    /// Rest volume, m³ (0 for cloth and rope).
    pub rest_volume: Real,
    /// Mass-weighted centre of the free particles (of all particles if all are pinned), m.
    pub center_of_mass: [Real; 3],
}

/// Statistics of the world at one instant.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FrameStats {
    /// Kinetic energy `Σ ½ m v²` of the free particles, J.
    pub kinetic_energy: Real,
    /// Largest `|ℓ − d| / d` over stretch, shear and rope-segment constraints, and largest
    /// principal strain `|σ − 1|` of each Neo-Hookean tet (see
    /// [`NeoHookeanSet::strain`](crate::constraints::NeoHookeanSet::strain)).
    pub max_strain: Real,
    /// Mean of the same, one term per constraint and per tet.
    pub mean_strain: Real,
    /// Deepest distance of a particle below a collider surface, m (0 when none is inside).
    pub max_penetration: Real,
    /// Edges of the tearing cloth torn so far (see [`tear`](crate::bodies::tear)).
    pub torn_edges: u64,
    /// Per body.
    pub bodies: Vec<BodyStats>,
}

impl FrameStats {
    /// Measures `world` now.
    pub fn measure(world: &World) -> Self {
        let ps = &world.particles;
        let kinetic_energy = (0..ps.len())
            .filter(|&i| ps.inv_mass[i] > 0.0)
            .map(|i| 0.5 * ps.v[i].norm_squared() / ps.inv_mass[i])
            .sum();
        let (stretch, tets) = (&world.constraints.stretch, &world.constraints.neo_hookean);
        let strains = (0..stretch.len())
            .map(|c| stretch.strain(&ps.x, c).abs())
            .chain((0..tets.len()).map(|t| tets.strain(&ps.x, t)));
        let (mut max_strain, mut sum) = (0.0 as Real, 0.0f64);
        for s in strains {
            max_strain = max_strain.max(s);
            sum += s as f64;
        }
        let count = stretch.len() + tets.len();
        let mean_strain = if count == 0 {
            0.0
        } else {
            (sum / count as f64) as Real
        };
        let max_penetration = world
            .colliders
            .iter()
            .flat_map(|c| ps.x.iter().map(|&x| -c.shape.distance_within(x, 0.0).0))
            .fold(0.0, Real::max);
        let bodies = world
            .bodies
            .iter()
            .map(|b| {
                let range = b.particles.clone();
                let free: Vec<usize> = range.clone().filter(|&i| ps.inv_mass[i] > 0.0).collect();
                let com = if free.is_empty() {
                    range.clone().map(|i| ps.x[i]).sum::<Vec3>() / range.len().max(1) as Real
                } else {
                    let m: Real = free.iter().map(|&i| 1.0 / ps.inv_mass[i]).sum();
                    free.iter().map(|&i| ps.x[i] / ps.inv_mass[i]).sum::<Vec3>() / m
                };
                BodyStats {
                    name: b.name.clone(),
                    volume: b.volume(&ps.x),
                    rest_volume: b.rest_volume,
                    center_of_mass: com.into(),
                }
            })
            .collect();
        FrameStats {
            kinetic_energy,
            max_strain,
            mean_strain,
            max_penetration,
            torn_edges: world.torn_edges(),
            bodies,
        }
    }
}

/// A part of [`World::step`] whose wall time [`StageMs`] holds. Every moment of a step belongs
/// to one stage: a stage's time runs from the end of the one timed before it to its own end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Bookkeeping of the frame and of each substep: collider motions, the materials'
    /// coefficients, the multipliers' reset, the thread team.
    Setup,
    /// External forces (gravity, wind).
    Forces,
    /// Damping.
    Damping,
    /// Predicted positions.
    Predict,
    /// Collision detection: the swept test, contacts with colliders and between particles.
    CollisionDetection,
    /// Shape matching.
    ShapeMatching,
    /// Projection of the stretch family (stretch, shear, rope segments).
    Stretch,
    /// Projection of cross-distance bending.
    BendDistance,
    /// Projection of dihedral bending.
    Dihedral,
    /// Projection of isometric bending.
    Isometric,
    /// Projection of tet volumes.
    Volume,
    /// Projection of long-range attachments (tethers).
    Tether,
    /// Projection of enclosed volumes (pressure).
    Pressure,
    /// Projection of attachments.
    Attachment,
    /// Projection of particle-particle contacts.
    ParticleContact,
    /// Projection of particle contacts against other bodies' surface triangles.
    SurfaceContact,
    /// Projection of collider contacts.
    Contact,
    /// Copying positions into the projection's packed slots and back (and the Jacobi solver's
    /// per-iteration sums and extrapolation).
    Pack,
    /// Velocities, friction and restitution.
    Velocities,
    /// The end-of-frame check for non-finite positions and divergence.
    Check,
}

impl Stage {
    /// Every stage, in the order of the report and the CSV columns.
    pub const ALL: [Stage; 20] = [
        Stage::Setup,
        Stage::Forces,
        Stage::Damping,
        Stage::Predict,
        Stage::CollisionDetection,
        Stage::ShapeMatching,
        Stage::Stretch,
        Stage::BendDistance,
        Stage::Dihedral,
        Stage::Volume,
        Stage::Tether,
        Stage::Pressure,
        Stage::Attachment,
        Stage::ParticleContact,
        Stage::SurfaceContact,
        Stage::Contact,
        Stage::Pack,
        Stage::Velocities,
        Stage::Check,
        // Last, so that the columns before it keep their places in the CSV.
        Stage::Isometric,
    ];

    /// The stage's name in the report's `stage_ms` and in CSV columns.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Setup => "setup",
            Stage::Forces => "forces",
            Stage::Damping => "damping",
            Stage::Predict => "predict",
            Stage::CollisionDetection => "collision_detection",
            Stage::ShapeMatching => "shape_matching",
            Stage::Stretch => "stretch",
            Stage::BendDistance => "bend_distance",
            Stage::Dihedral => "dihedral",
            Stage::Isometric => "isometric",
            Stage::Volume => "volume",
            Stage::Tether => "tether",
            Stage::Pressure => "pressure",
            Stage::Attachment => "attachment",
            Stage::ParticleContact => "particle_contact",
            Stage::SurfaceContact => "surface_contact",
            Stage::Contact => "contact",
            Stage::Pack => "pack",
            Stage::Velocities => "velocities",
            Stage::Check => "check",
        }
    }
}

/// Wall time of each [`Stage`] of one frame's step, ms, summed over the substeps and iterations;
/// the stages add up to the step's time ([`World::stage_ms`]). Serialized as an object keyed by
/// [`Stage::name`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageMs([f64; Stage::ALL.len()]);

impl StageMs {
    /// The time of `stage`, ms.
    pub fn get(&self, stage: Stage) -> f64 {
        self.0[stage as usize]
    }

    /// The time of every stage, ms.
    pub fn total(&self) -> f64 {
        self.0.iter().sum()
    }
}

impl Serialize for StageMs {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(Stage::ALL.len()))?;
        for stage in Stage::ALL {
            map.serialize_entry(stage.name(), &self.get(stage))?;
        }
        map.end()
    }
}

/// Times the stages of a step: each [`lap`](StageClock::lap) gives the time since the previous
/// one (or the start) to a stage. One clock read per stage, so it is cheap enough to stay on.
#[derive(Clone, Copy, Debug)]
pub struct StageClock {
    last: Instant,
    ms: StageMs,
}

impl StageClock {
    /// A clock started now, every stage at 0.
    pub fn start() -> Self {
        StageClock {
            last: Instant::now(),
            ms: StageMs::default(),
        }
    }

    /// Gives the time since the previous lap to `stage`.
    pub fn lap(&mut self, stage: Stage) {
        let now = Instant::now();
        self.ms.0[stage as usize] += 1e3 * (now - self.last).as_secs_f64();
        self.last = now;
    }

    /// Gives the time since the previous lap to `stage` if `timed`; else leaves it to the next
    /// lap (for a stage that has nothing to do: no clock read).
    pub fn lap_if(&mut self, timed: bool, stage: Stage) {
        if timed {
            self.lap(stage);
        }
    }

    /// The times so far.
    pub fn ms(&self) -> StageMs {
        self.ms
    }
}
