//! Rope: a chain of particles.

use super::{Body, BodyKind, MAX_PARTICLES};
use crate::constraints::{ConstraintSets, Stiffness};
use crate::handles::ColliderHandle;
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;
use crate::shape_matching::ClusterMaterial;
use crate::validate::{self, Checked};

/// A rope to add to a world ([`World::add_rope`](crate::World::add_rope)): a straight chain of
/// particles from `start` to `end`. The defaults are those of a scene's `[[rope]]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct RopeDesc {
    /// Unique name (default empty: `rope<n>` for the n-th rope of the world).
    pub name: String,
    /// First particle, m.
    pub start: Vec3,
    /// Last particle, m.
    pub end: Vec3,
    /// Number of segments (≥ 1); the rope has `segments + 1` particles.
    pub segments: u32,
    /// Total mass, kg, spread equally over the particles.
    pub mass: Real,
    /// Pin the first particle (default false).
    pub pin_start: bool,
    /// Pin the last particle (default false).
    pub pin_end: bool,
    /// Stiffness of the segments (default rigid XPBD); `elastic` takes the axial stiffness `EA`,
    /// N.
    pub stretch: Stiffness,
    /// Bending (default none): distance constraints between particles two apart, or for
    /// `elastic` the bending stiffness `EI` in N·m² of a rod, held at every interior particle
    /// (see [`RopeBendingSet`](crate::constraints::RopeBendingSet)): XPBD compliance
    /// `L³ / (4 EI)` for segments of rest length `L`.
    pub bend: Option<Stiffness>,
    /// Collision distance, m (default 0.01).
    pub thickness: Real,
    /// Müller 2007 damping in [0, 1]: the fraction of non-rigid velocity removed per
    /// [`RATE_TIME`](crate::params::RATE_TIME) (default 0).
    pub damping: Real,
    /// Make the whole rope one shape-matching cluster with this material (default none).
    pub shape: Option<ClusterMaterial>,
    /// Long-range attachments (default false): tether every free particle to its nearest pinned
    /// end at their distance along the rope (see [`tether`](crate::constraints::tether)).
    pub long_range: bool,
    /// The collider that carries the pinned ends (default none: they stay where they are):
    /// each then follows the point of the collider it was on when the rope was added.
    pub pin_collider: Option<ColliderHandle>,
    /// Strain limiting (default none): after the iterations of each substep, every segment
    /// longer than `1 + stretch_limit` times its rest length is brought back to that length (a
    /// fraction ≥ 0; see [`strain_limit`](crate::constraints::strain_limit)).
    pub stretch_limit: Option<Real>,
}

impl RopeDesc {
    /// A rope of `segments` segments and `mass` kg from `start` to `end`, with the defaults.
    pub fn new(start: Vec3, end: Vec3, segments: u32, mass: Real) -> Self {
        RopeDesc {
            name: String::new(),
            start,
            end,
            segments,
            mass,
            pin_start: false,
            pin_end: false,
            stretch: Stiffness::default(),
            bend: None,
            thickness: 0.01,
            damping: 0.0,
            shape: None,
            long_range: false,
            pin_collider: None,
            stretch_limit: None,
        }
    }

    /// The pinned particles, 0-based within the rope: the first and/or the last.
    pub fn pins(&self) -> Vec<usize> {
        let last = self.segments as usize;
        [(self.pin_start, 0), (self.pin_end, last)]
            .into_iter()
            .filter_map(|(pinned, k)| pinned.then_some(k))
            .collect()
    }

    /// Checks every field (keys as in a scene's `[[rope]]` table).
    pub fn validate(&self) -> Checked {
        validate::finite(&self.start, "start")?;
        validate::finite(&self.end, "end")?;
        validate::check(self.start != self.end, "end", || {
            "is the same point as `start`: expected a rope of non-zero length".into()
        })?;
        validate::at_least(self.segments, 1, "segments")?;
        validate::check(u64::from(self.segments) < MAX_PARTICLES, "segments", || {
            format!(
                "= {}: expected fewer than {MAX_PARTICLES} segments",
                self.segments
            )
        })?;
        validate::positive(self.mass, "mass", "a mass in kg")?;
        validate::stiffness(&self.stretch, "stretch")?;
        if let Some(limit) = self.stretch_limit {
            validate::non_negative(limit, "stretch_limit")?;
        }
        if let Some(bend) = &self.bend {
            validate::stiffness(bend, "bend")?;
        }
        super::validate_common(self.thickness, self.damping, self.shape.as_ref())
    }

    /// Adds the rope's particles and constraints (the description is valid); returns its body,
    /// called `name`, the world's body number `body_index`.
    pub(crate) fn build(
        &self,
        name: String,
        ps: &mut ParticleSet,
        cs: &mut ConstraintSets,
        body_index: u32,
    ) -> Body {
        let start = ps.len();
        let n = self.segments as usize + 1;
        let inv_mass = n as Real / self.mass;
        for k in 0..n {
            let x = self
                .start
                .lerp(&self.end, k as Real / self.segments as Real);
            let pinned = (k == 0 && self.pin_start) || (k == n - 1 && self.pin_end);
            ps.push(
                x,
                if pinned { 0.0 } else { inv_mass },
                self.thickness,
                body_index,
            );
        }
        for k in start..start + n - 1 {
            let rest = (ps.x[k + 1] - ps.x[k]).norm();
            // An elastic segment of axial stiffness EA has compliance L / EA.
            let segment = cs.stretch.materials.add_element(self.stretch, 1.0 / rest);
            cs.stretch.push(k as u32, k as u32 + 1, rest, segment);
            if let Some(limit) = self.stretch_limit {
                cs.stretch_limit.push(k as u32, k as u32 + 1, rest, limit);
            }
        }
        if self.long_range {
            let x = &ps.x[start..];
            let segments: Vec<[u32; 2]> = (0..n as u32 - 1).map(|k| [k, k + 1]).collect();
            cs.tether.add_body(start, x, &segments, &self.pins());
            cs.tether.check();
        }
        if let Some(bend @ Stiffness::Elastic { .. }) = self.bend {
            // Two segments of length L bent by θ hold ½ (4 EI / L³) |d|², |d| ≈ L θ / 2.
            for k in start + 1..(start + n).saturating_sub(1) {
                let rest = (ps.x[k + 1] - ps.x[k - 1]).norm() / 2.0;
                let mat = cs
                    .rope_bending
                    .materials
                    .add_element(bend, 4.0 / rest.powi(3));
                cs.rope_bending
                    .push([k - 1, k, k + 1].map(|i| i as u32), mat);
            }
        } else if let Some(bend) = self.bend {
            let mat = cs.bend_distance.materials.add(bend);
            for k in start..(start + n).saturating_sub(2) {
                let rest = (ps.x[k + 2] - ps.x[k]).norm();
                cs.bend_distance.push(k as u32, k as u32 + 2, rest, mat);
            }
        }
        Body {
            name,
            kind: BodyKind::Rope,
            particles: start..ps.len(),
            triangles: Vec::new(),
            damping: self.damping,
            drag: 0.0,
            lift: 0.0,
            skin: None,
            tets: Vec::new(),
            rest_volume: 0.0,
            inv_mass,
            vertex_map: None,
        }
    }
}
