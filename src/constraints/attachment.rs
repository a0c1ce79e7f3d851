//! Attachment constraints: a particle held to a fixed point in space by a spring of its own
//! compliance (a soft pin, or the mouse grab of the viewer); and pins carried by kinematic
//! colliders ([`ColliderPinSet`]).

use super::stiffness::{Coeffs, MaterialTable, delta_lambda};
use crate::collision::Collider;
use crate::math::{Quat, Real, Vec3};
use crate::particles::ParticleSet;

/// Pinned particles carried by colliders: each follows a point fixed in its collider's frame, so
/// that a cape stays on a moving body and a curtain on a sliding rail. The frame of collider `j`
/// is its [center](crate::Shape::center) turned by `turn[j]`, the rotation it has made since it
/// was added; a pin's point is `center + turn · local`.
#[derive(Clone, Debug, Default)]
pub struct ColliderPinSet {
    /// The carried particle (pinned: zero inverse mass).
    pub ids: Vec<u32>,
    /// The collider that carries it.
    pub collider: Vec<u32>,
    /// Its point in the collider's frame, m.
    pub local: Vec<Vec3>,
    /// Per collider, the rotation it has made since it was added.
    pub turn: Vec<Quat>,
}

impl ColliderPinSet {
    /// Counts collider `j`'s rotation `turn` of the substep (from [`Collider::advance`]).
    pub fn turn(&mut self, j: usize, turn: Quat) {
        if j >= self.turn.len() {
            self.turn.resize(j + 1, Quat::identity());
        }
        self.turn[j] = turn * self.turn[j];
        self.turn[j].renormalize();
    }

    /// Attaches particle `id`, now at `x`, to collider `j` as it is now.
    pub fn push(&mut self, id: u32, x: Vec3, j: usize, collider: &Collider) {
        self.turn(j, Quat::identity());
        self.ids.push(id);
        self.collider.push(j as u32);
        self.local
            .push(self.turn[j].inverse() * (x - collider.shape.center()));
    }

    /// Renumbers the carried particles: `to(id)` is the new id, or `None` to drop the pin.
    pub fn renumber(&mut self, to: impl Fn(u32) -> Option<u32>) {
        let mut kept = 0;
        for c in 0..self.ids.len() {
            if let Some(id) = to(self.ids[c]) {
                self.ids[kept] = id;
                self.collider[kept] = self.collider[c];
                self.local[kept] = self.local[c];
                kept += 1;
            }
        }
        self.ids.truncate(kept);
        self.collider.truncate(kept);
        self.local.truncate(kept);
    }

    /// The point that pin `c` is carried to by the colliders at their current pose, m.
    pub fn target(&self, c: usize, colliders: &[Collider]) -> Vec3 {
        let j = self.collider[c] as usize;
        colliders[j].shape.center() + self.turn[j] * self.local[c]
    }

    /// Moves the predicted position of every carried particle onto its point (the colliders
    /// have advanced to the end of the substep), so that the velocity update gives it the
    /// collider's velocity there.
    pub fn place(&self, ps: &mut ParticleSet, colliders: &[Collider]) {
        for c in 0..self.ids.len() {
            let i = self.ids[c] as usize;
            ps.p[i] = self.target(c, colliders);
            ps.rounding[i] = Vec3::zeros();
        }
    }
}

/// Attachments, one entry per constraint in each field.
#[derive(Clone, Debug, Default)]
pub struct AttachmentSet {
    /// The attached particle.
    pub ids: Vec<u32>,
    /// The point it is held to, m.
    pub target: Vec<Vec3>,
    /// Lagrange multiplier accumulated in the current substep.
    pub lambda: Vec<Real>,
    /// Index into `materials`.
    pub mat: Vec<u16>,
    /// Stiffness per material.
    pub materials: MaterialTable,
}

/// Projects one attachment: `C(p) = |p − t|`, `∇C = (p − t) / |p − t|` (a distance constraint of
/// rest length 0 to a fixed point; Müller et al. 2007 sec. 3.3, XPBD update of Macklin et al.
/// 2016). Returns the correction of `p` and `Δλ`, or `None` when `p` is at the target.
#[inline]
pub fn solve_attachment(
    p: Vec3,
    w: Real,
    target: Vec3,
    lambda: Real,
    dx: Vec3,
    k: &Coeffs,
) -> Option<(Vec3, Real)> {
    let diff = p - target;
    let c = diff.norm();
    if c <= Real::EPSILON {
        return None;
    }
    let n = diff / c;
    let dl = delta_lambda(c, w, Some(n.dot(&dx)), lambda, k);
    Some((n * (w * k.scale * dl), dl))
}

impl AttachmentSet {
    /// Adds an attachment of particle `id` to `target` with material `mat`.
    pub fn push(&mut self, id: u32, target: Vec3, mat: u16) {
        self.ids.push(id);
        self.target.push(target);
        self.lambda.push(0.0);
        self.mat.push(mat);
    }

    /// Projects every attachment in order.
    pub fn project_serial(&mut self, ps: &mut ParticleSet) {
        for c in 0..self.ids.len() {
            let i = self.ids[c] as usize;
            let k = &self.materials.coeffs[self.mat[c] as usize];
            let dx = ps.p[i] - ps.x[i];
            if let Some((dp, dl)) = solve_attachment(
                ps.p[i],
                ps.inv_mass[i],
                self.target[c],
                self.lambda[c],
                dx,
                k,
            ) {
                ps.p[i] += dp;
                self.lambda[c] += dl;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::stiffness::Stiffness;

    #[test]
    fn rigid_attachment_moves_the_particle_onto_the_target() {
        let k = Coeffs::rigid();
        let (p, t) = (Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.5, 2.5, 2.0));
        let (dp, _) = solve_attachment(p, 2.0, t, 0.0, Vec3::zeros(), &k).unwrap();
        assert!((p + dp - t).norm() < 1e-6);
    }

    #[test]
    fn compliant_attachment_balances_a_constant_force() {
        // A particle of mass m pulled by gravity hangs below its target by α m g at equilibrium.
        let (m, g, alpha, h) = (0.2, 9.81, 1e-2, 0.01);
        let k = Stiffness::Xpbd {
            compliance: alpha,
            damping: 0.0,
        }
        .coeffs(h, 1);
        let t = Vec3::zeros();
        let (mut x, mut v) = (t, Vec3::zeros());
        for _ in 0..5000 {
            v.y -= g * h;
            let mut p = x + v * h;
            if let Some((dp, _)) = solve_attachment(p, 1.0 / m, t, 0.0, p - x, &k) {
                p += dp;
            }
            // Damp the velocity after the update, so that the rest state feels the full weight.
            v = (p - x) / h * 0.99;
            x = p;
        }
        let expected = alpha * m * g;
        assert!(
            ((t.y - x.y) - expected).abs() < 0.01 * expected,
            "sag {} vs {expected}",
            t.y - x.y
        );
    }

    #[test]
    fn a_pin_follows_a_turning_and_moving_collider_point() {
        use crate::collision::{Motion, Shape};
        let mut collider = Collider::new(Shape::Sphere {
            center: Vec3::new(1.0, 0.0, 0.0),
            radius: 0.5,
        });
        collider.motion = Motion {
            velocity: Vec3::new(0.0, 2.0, 0.0),
            spin: Vec3::new(0.0, 0.0, 3.0),
        };
        let mut pins = ColliderPinSet::default();
        let mut ps = ParticleSet::default();
        let x0 = Vec3::new(1.5, 0.0, 0.0);
        ps.push(x0, 0.0, 0.01, 0);
        pins.push(0, x0, 0, &collider);
        let (h, steps) = (0.001, 500);
        for _ in 0..steps {
            let turn = collider.advance(h).map_or(Quat::identity(), |m| m.turn);
            pins.turn(0, turn);
        }
        pins.place(&mut ps, std::slice::from_ref(&collider));
        // After t = 0.5 s: the center moved up by 1 m and the point turned by 1.5 rad about z.
        let t = h * steps as Real;
        let (angle, r) = (3.0 * t, 0.5);
        let expected = Vec3::new(1.0 + r * angle.cos(), 2.0 * t + r * angle.sin(), 0.0);
        assert!(
            (ps.p[0] - expected).norm() < 1e-4,
            "{} vs {expected}",
            ps.p[0]
        );
    }

    #[test]
    fn pinned_particle_is_not_moved() {
        let k = Coeffs::rigid();
        let (dp, _) =
            solve_attachment(Vec3::x(), 0.0, Vec3::zeros(), 0.0, Vec3::zeros(), &k).unwrap();
        assert_eq!(dp, Vec3::zeros());
    }
}
