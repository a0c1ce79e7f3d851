//! Per-frame statistics of a world, as written to the JSON report.

use crate::math::{Real, Vec3};
use crate::world::World;
use serde::Serialize;

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
