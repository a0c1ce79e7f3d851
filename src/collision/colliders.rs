//! Colliders: signed distance and outward normal of each shape, and the scripted motion of
//! kinematic ones.

use super::mesh::MeshShape;
use crate::constraints::{ContactMaterial, Stiffness};
use crate::math::{LaneVec, Lanes, Quat, Real, Vec3, rotate_lanes};
use crate::validate::{self, Checked};
use std::sync::Arc;

/// A collider's geometry.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Infinite plane through `point` with unit outward `normal`; everything behind it is inside.
    Plane {
        /// A point of the plane, m.
        point: Vec3,
        /// Outward normal (normalized when the collider is added).
        normal: Vec3,
    },
    /// Sphere.
    Sphere {
        /// Centre, m.
        center: Vec3,
        /// Radius, m.
        radius: Real,
    },
    /// Box with half extents along its own axes, rotated by `rotation` about its center.
    Box {
        /// Centre, m.
        center: Vec3,
        /// Half the side along each of the box's own axes, m.
        half_extents: Vec3,
        /// Orientation about the centre.
        rotation: Quat,
    },
    /// All points within `radius` of the segment from `a` to `b`.
    Capsule {
        /// One end of the segment, m.
        a: Vec3,
        /// The other end, m.
        b: Vec3,
        /// Radius, m.
        radius: Real,
    },
    /// A triangle mesh (vertices in its own frame, m), rotated by `rotation` about its origin,
    /// which is placed at `position`.
    Mesh {
        /// The mesh, shared between copies of the world.
        mesh: Arc<MeshShape>,
        /// Where the mesh's origin is, m.
        position: Vec3,
        /// Orientation about the mesh's origin.
        rotation: Quat,
    },
}

/// The scripted motion of a kinematic collider: it translates at `velocity` m/s and spins at
/// `spin` rad/s (axis times rate) about its center ([`Shape::center`]). Zero for a static one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    /// Linear velocity, m/s.
    pub velocity: Vec3,
    /// Angular velocity, rad/s.
    pub spin: Vec3,
}

impl Motion {
    /// True for a static collider (no velocity, no spin); cheaper than comparing with the
    /// default, which matters in the per-particle loops of contact generation.
    #[inline]
    pub fn is_still(&self) -> bool {
        let (v, s) = (&self.velocity, &self.spin);
        v.x == 0.0 && v.y == 0.0 && v.z == 0.0 && s.x == 0.0 && s.y == 0.0 && s.z == 0.0
    }
}

/// A collider with its contact material and motion.
#[derive(Clone, Debug, PartialEq)]
pub struct Collider {
    /// Its name, as a scene's `name` key gives it (default empty: unnamed), for
    /// [`World::collider_named`](crate::World::collider_named).
    pub name: String,
    /// Geometry.
    pub shape: Shape,
    /// Friction and restitution of its contacts (default: friction 0.3, no bounce).
    pub material: ContactMaterial,
    /// Stiffness of the contact constraints (default rigid).
    pub stiffness: Stiffness,
    /// Scripted motion (default none: static).
    pub motion: Motion,
    /// Whether particles collide with it (default true). A collider that is not solid touches
    /// nothing: it only carries the pins attached to it ([`World::pin_to_collider`]), a frame
    /// that moves like a character's bone or a flag's pole.
    ///
    /// [`World::pin_to_collider`]: crate::World::pin_to_collider
    pub solid: bool,
}

impl Collider {
    /// A static collider of `shape`, with the default contact material (friction 0.3, no
    /// bounce) and rigid contacts.
    pub fn new(shape: Shape) -> Self {
        Collider {
            name: String::new(),
            shape,
            material: ContactMaterial::default(),
            stiffness: Stiffness::default(),
            motion: Motion::default(),
            solid: true,
        }
    }

    /// Checks every field (keys as in a scene's `[[collider]]` table).
    pub fn validate(&self) -> Checked {
        match &self.shape {
            Shape::Plane { point, normal } => {
                validate::finite(point, "point")?;
                validate::finite(normal, "normal")?;
                validate::check(normal.norm() > 0.0, "normal", || {
                    "is zero: expected a direction".into()
                })?;
            }
            Shape::Sphere { center, radius } => {
                validate::finite(center, "center")?;
                validate::positive(*radius, "radius", "a radius in m")?;
            }
            Shape::Box {
                center,
                half_extents,
                ..
            } => {
                validate::finite(center, "center")?;
                for h in half_extents.iter() {
                    validate::positive(*h, "half_extents", "a half extent in m")?;
                }
            }
            Shape::Capsule { a, b, radius } => {
                validate::finite(a, "a")?;
                validate::finite(b, "b")?;
                validate::positive(*radius, "radius", "a radius in m")?;
            }
            Shape::Mesh { position, .. } => validate::finite(position, "position")?,
        }
        let m = &self.material;
        validate::non_negative(m.static_friction, "static_friction")?;
        validate::non_negative(m.kinetic_friction, "kinetic_friction")?;
        validate::in_unit(m.restitution, "restitution")?;
        validate::stiffness_not_elastic(
            &self.stiffness,
            "stiffness",
            "a contact does not take: use \"xpbd\"",
        )?;
        validate::finite(&self.motion.velocity, "motion.velocity")?;
        validate::finite(&self.motion.spin, "motion.spin")
    }

    /// Moves the collider along its motion for `h` seconds: its center by `velocity · h`, and
    /// its orientation by the rotation of angle `|spin| h` about `spin`, about the center.
    /// Returns that motion, which carries any point rigidly with the collider (`None` for a
    /// static collider).
    pub fn advance(&mut self, h: Real) -> Option<Carry> {
        if self.motion.is_still() {
            return None;
        }
        let (turn, shift) = (self.motion.spin * h, self.motion.velocity * h);
        let carry = Carry {
            turn: Quat::from_scaled_axis(turn),
            center: self.shape.center(),
            shift,
            angle: turn.norm(),
            shift_len: shift.norm(),
        };
        let turn = carry.turn;
        let moved = |p: &mut Vec3| *p = carry.apply(*p);
        match &mut self.shape {
            Shape::Plane { point, normal } => {
                moved(point);
                *normal = turn * *normal;
            }
            Shape::Sphere { center, .. } => moved(center),
            Shape::Box {
                center, rotation, ..
            }
            | Shape::Mesh {
                position: center,
                rotation,
                ..
            } => {
                moved(center);
                *rotation = turn * *rotation;
                rotation.renormalize();
            }
            Shape::Capsule { a, b, .. } => {
                moved(a);
                moved(b);
            }
        }
        Some(carry)
    }

    /// Velocity of the collider's surface at point `x`, m/s: `v + ω × (x − center)`.
    pub fn surface_velocity(&self, x: Vec3) -> Vec3 {
        self.motion.velocity + self.motion.spin.cross(&(x - self.shape.center()))
    }
}

/// A collider's rigid motion over one substep ([`Collider::advance`]): a turn about its centre
/// at the substep's start, then a shift.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Carry {
    /// The turn.
    pub turn: Quat,
    center: Vec3,
    shift: Vec3,
    /// The turn's angle, rad.
    angle: Real,
    /// The shift's length, m.
    shift_len: Real,
}

impl Carry {
    /// Where the point that was at `x` (m) at the substep's start is carried, m.
    #[inline]
    pub fn apply(&self, x: Vec3) -> Vec3 {
        self.apply_lanes(LaneVec::from(x)).into()
    }

    /// [`apply`](Self::apply) at one point or lane by lane, with the same bits.
    #[inline(always)]
    pub fn apply_lanes<T: Lanes>(&self, x: LaneVec<T>) -> LaneVec<T> {
        let center = LaneVec::splat(self.center);
        center + LaneVec::splat(self.shift) + rotate_lanes(&self.turn, x - center)
    }

    /// A bound on how far any point of the box from `lo` to `hi` (m) is carried,
    /// `|apply(x) − x|`, m: the shift's length plus the turn's angle times the distance from the
    /// centre (a chord is shorter than its arc), with an allowance for the rounding of
    /// [`apply`](Self::apply). A point is the box from `x` to `x`.
    #[inline]
    pub fn carries_at_most(&self, lo: Vec3, hi: Vec3) -> Real {
        self.carries_at_most_lanes(LaneVec::from(lo), LaneVec::from(hi))
    }

    /// [`carries_at_most`](Self::carries_at_most) for one box or lane by lane, with the same
    /// bits.
    #[inline(always)]
    pub fn carries_at_most_lanes<T: Lanes>(&self, lo: LaneVec<T>, hi: LaneVec<T>) -> T {
        let larger = |a: T, b: T| a.select_gt(b, a, b);
        let (lo, hi, c) = (lo.0, hi.0, LaneVec::<T>::splat(self.center).0);
        // The sum of the coordinates' magnitudes bounds the distance without a square root.
        let arm = |k: usize| larger((lo[k] - c[k]).abs(), (hi[k] - c[k]).abs());
        let arm = arm(0) + arm(1) + arm(2);
        let size = |k: usize| larger(lo[k].abs(), hi[k].abs());
        let size = larger(larger(size(0), size(1)), size(2));
        let size = size + T::splat(self.center.abs().max()) + T::splat(self.shift_len);
        let (one, allowance) = (T::splat(1.0), T::splat(1e-5));
        T::splat(self.shift_len) + T::splat(self.angle) * arm + allowance * (one + size)
    }
}

impl Shape {
    /// The keys that describe a shape of kind `name` in a scene table (and the binding's
    /// arguments), besides `shape` itself; an error at `shape` naming the kinds otherwise.
    pub fn keys(name: &str) -> Checked<&'static [&'static str]> {
        match name {
            "plane" => Ok(&["point", "normal"]),
            "sphere" => Ok(&["center", "radius"]),
            "box" => Ok(&["center", "half_extents", "rotation"]),
            "capsule" => Ok(&["a", "b", "radius"]),
            "mesh" => Ok(&["mesh", "position", "scale", "rotation"]),
            other => Err(validate::BuildError::new(
                "shape",
                format!(
                    "= \"{other}\": expected \"plane\", \"sphere\", \"box\", \"capsule\" or \"mesh\""
                ),
            )),
        }
    }

    /// The point a kinematic collider spins about, m: a plane's point, the center of a sphere or
    /// box, the middle of a capsule's segment, a mesh's position (the origin of its frame).
    pub fn center(&self) -> Vec3 {
        match self {
            Shape::Plane { point, .. } => *point,
            Shape::Sphere { center, .. } | Shape::Box { center, .. } => *center,
            Shape::Capsule { a, b, .. } => (a + b) / 2.0,
            Shape::Mesh { position, .. } => *position,
        }
    }

    /// Signed distance from `p` to the surface (negative inside), m, and the outward unit normal
    /// of the nearest surface point.
    // Always inlined: in a build where it was a call, its sphere arm squared four lanes of
    // which two held the bytes after the radius, a subnormal there, and each call waited on a
    // microcode assist (on Zen 3 the `curtain` scene took 15% longer per frame, and `twist`
    // spent 12% of its frame in the call where contact generation called it directly).
    #[inline(always)]
    pub fn distance(&self, p: Vec3) -> (Real, Vec3) {
        match self.distance_lanes(LaneVec::from(p)) {
            Some((d, n)) => (d, n.into()),
            None => self.distance_within(p, Real::INFINITY),
        }
    }

    /// [`distance`](Self::distance) at one point (`T` = [`Real`]) or at each lane of a batch of
    /// points (a SIMD vector per coordinate), with the same bits either way; `None` for a mesh,
    /// which answers from its distance grid.
    #[inline(always)]
    pub fn distance_lanes<T: Lanes>(&self, p: LaneVec<T>) -> Option<(T, LaneVec<T>)> {
        let (zero, one) = (T::splat(0.0), T::splat(1.0));
        Some(match self {
            Shape::Plane { point, normal } => {
                let n = LaneVec::splat(*normal);
                ((p - LaneVec::splat(*point)).dot(n), n)
            }
            Shape::Sphere { center, radius } => {
                let (d, n) = away_from(LaneVec::splat(*center), p);
                (d - T::splat(*radius), n)
            }
            Shape::Capsule { a, b, radius } => {
                let ab = b - a;
                let length2 = T::splat(ab.norm_squared().max(Real::EPSILON));
                let (ab, a) = (LaneVec::splat(ab), LaneVec::splat(*a));
                let t = (p - a).dot(ab) / length2;
                // `t.clamp(0.0, 1.0)`, with its bits for −0 and NaN.
                let t = zero.select_gt(t, zero, t);
                let t = t.select_gt(one, one, t);
                let (d, n) = away_from(a + ab * t, p);
                (d - T::splat(*radius), n)
            }
            Shape::Box {
                center,
                half_extents,
                rotation,
            } => {
                // The point in the box's own frame, turned back about its centre.
                let q = rotate_lanes(&rotation.inverse(), p - LaneVec::splat(*center)).0;
                let d = [0, 1, 2].map(|k| q[k].abs() - T::splat(half_extents[k]));
                let sign = q.map(|c| zero.select_gt(c, -one, one));
                // Outside, the nearest point is `q` clamped to the box: a face, edge or corner.
                let outside = LaneVec(d.map(|c| c.select_gt(zero, c, zero)));
                let out = outside.norm_squared();
                let out_d = out.sqrt();
                let out_n = LaneVec([0, 1, 2].map(|k| outside.0[k] * sign[k])) / out_d;
                // Inside, the nearest face: the first of the largest `d` (as nalgebra's `imax`).
                let d01 = d[1].select_gt(d[0], d[1], d[0]);
                let on_2 = |then: T, otherwise: T| d[2].select_gt(d01, then, otherwise);
                let on_1 = |then: T, otherwise: T| d[1].select_gt(d[0], then, otherwise);
                let in_n = [
                    on_2(zero, on_1(zero, sign[0])),
                    on_2(zero, on_1(sign[1], zero)),
                    on_2(sign[2], zero),
                ];
                let local = [0, 1, 2].map(|k| out.select_gt(zero, out_n.0[k], in_n[k]));
                let n = rotate_lanes(rotation, LaneVec(local));
                (out.select_gt(zero, out_d, on_2(d[2], d01)), n)
            }
            Shape::Mesh { .. } => return None,
        })
    }

    /// [`distance`](Self::distance) where it is below `reach` m; elsewhere possibly only a value
    /// of at least `reach` (with the normal undefined), which a mesh answers from its distance
    /// grid without a walk down its hierarchy ([`MeshShape::distance_within`]). For the tests
    /// that only ask whether a point is nearer than `reach`.
    #[inline]
    pub fn distance_within(&self, p: Vec3, reach: Real) -> (Real, Vec3) {
        match self {
            Shape::Mesh {
                mesh,
                position,
                rotation,
            } => {
                let local = rotation.inverse_transform_vector(&(p - position));
                let (d, n) = mesh.distance_within(local, reach);
                (d, rotation.transform_vector(&n))
            }
            _ => self.distance(p),
        }
    }

    /// A lower bound, m, on the signed distance ([`distance`](Self::distance)) from every point
    /// of the box from `lo` to `hi` to the shape: for a plane the height of the box's lowest
    /// corner, for a sphere the distance from the box to the centre less the radius, for the
    /// other shapes the gap between the box and the box around the shape (−∞ where they meet).
    /// An open mesh has none (−∞): a point behind it is inside however far it is.
    pub fn box_gap(&self, lo: Vec3, hi: Vec3) -> Real {
        let (center, half) = ((lo + hi) / 2.0, (hi - lo) / 2.0);
        match self {
            Shape::Plane { point, normal } => {
                normal.dot(&(center - point)) - normal.abs().dot(&half)
            }
            Shape::Sphere { center: c, radius } => (c.sup(&lo).inf(&hi) - c).norm() - radius,
            Shape::Capsule { a, b, radius } => {
                let r = Vec3::repeat(*radius);
                box_gap(lo, hi, a.inf(b) - r, a.sup(b) + r)
            }
            Shape::Box {
                center: c,
                half_extents,
                rotation,
            } => turned_box_gap(lo, hi, *c, *half_extents, rotation),
            Shape::Mesh {
                mesh,
                position,
                rotation,
            } if mesh.is_closed() => {
                let (l, h) = mesh.bounds();
                let center = position + rotation * ((l + h) / 2.0);
                turned_box_gap(lo, hi, center, (h - l) / 2.0, rotation)
            }
            Shape::Mesh { .. } => Real::NEG_INFINITY,
        }
    }

    /// [`distance`](Self::distance), but a mesh's from the closest point on its triangles
    /// ([`MeshShape::exact_distance`]) rather than from its distance grid: for measuring.
    pub fn exact_distance(&self, p: Vec3) -> (Real, Vec3) {
        match self {
            Shape::Mesh {
                mesh,
                position,
                rotation,
            } => {
                let (d, n) =
                    mesh.exact_distance(rotation.inverse_transform_vector(&(p - position)));
                (d, rotation.transform_vector(&n))
            }
            _ => self.distance(p),
        }
    }
}

/// The distance between the boxes `lo`–`hi` and `lo2`–`hi2`, m, or −∞ where they meet (a point
/// of the first inside a shape within the second has a negative distance to it, of no bound).
fn box_gap(lo: Vec3, hi: Vec3, lo2: Vec3, hi2: Vec3) -> Real {
    let apart = (lo2 - hi).sup(&(lo - hi2));
    match apart.max() > 0.0 {
        true => apart.sup(&Vec3::zeros()).norm(),
        false => Real::NEG_INFINITY,
    }
}

/// [`box_gap`] from the box `lo`–`hi` to the box around a box of half extents `half` about
/// `center`, turned by `rotation`.
fn turned_box_gap(lo: Vec3, hi: Vec3, center: Vec3, half: Vec3, rotation: &Quat) -> Real {
    let reach = rotation.to_rotation_matrix().matrix().abs() * half;
    box_gap(lo, hi, center - reach, center + reach)
}

/// Distance from `c` to `p` and the unit direction from `c` to `p` (up where they are within
/// `Real::EPSILON` m), at one point or lane by lane.
#[inline(always)]
fn away_from<T: Lanes>(c: LaneVec<T>, p: LaneVec<T>) -> (T, LaneVec<T>) {
    let diff = p - c;
    let d = diff.norm_squared().sqrt();
    let (eps, zero, one) = (T::splat(Real::EPSILON), T::splat(0.0), T::splat(1.0));
    let (n, up) = (diff / d, [zero, one, zero]);
    (
        d,
        LaneVec([0, 1, 2].map(|k| d.select_gt(eps, n.0[k], up[k]))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::simd::{gather_vec3, lanes_vec3};
    use wide::f32x8;

    fn close(a: Real, b: Real) -> bool {
        (a - b).abs() < 1e-5
    }

    #[test]
    fn box_gap_is_a_lower_bound_of_the_distance_from_every_point_of_the_box() {
        let torus = crate::mesh::TriMesh::load(std::path::Path::new("meshes/torus.obj")).unwrap();
        let turn = Quat::from_scaled_axis(Vec3::new(0.3, -0.7, 0.4));
        let shapes = [
            Shape::Plane {
                point: Vec3::new(0.2, -0.5, 0.1),
                normal: Vec3::new(0.3, 1.0, -0.2).normalize(),
            },
            Shape::Sphere {
                center: Vec3::new(0.5, 0.0, -0.3),
                radius: 0.8,
            },
            Shape::Capsule {
                a: Vec3::new(-1.0, 0.2, 0.0),
                b: Vec3::new(0.7, -0.4, 0.5),
                radius: 0.3,
            },
            Shape::Box {
                center: Vec3::new(0.1, 0.3, -0.2),
                half_extents: Vec3::new(0.9, 0.2, 0.5),
                rotation: turn,
            },
            Shape::Mesh {
                mesh: Arc::new(MeshShape::new(&torus, 0.5)),
                position: Vec3::new(-0.2, 0.1, 0.3),
                rotation: turn,
            },
        ];
        assert!(matches!(&shapes[4], Shape::Mesh { mesh, .. } if mesh.is_closed()));
        // Boxes of many sizes all round the shapes, each sampled at its corners, centre and a
        // lattice of inner points.
        let mut far = [0; 5];
        for (k, shape) in shapes.iter().enumerate() {
            for n in 0..400 {
                let f = |m: u32| ((n * m) % 97) as Real / 97.0;
                let center = Vec3::new(f(13), f(29), f(53)) * 6.0 - Vec3::repeat(3.0);
                let half = Vec3::new(f(7), f(11), f(17)) * 0.8;
                let (lo, hi) = (center - half, center + half);
                let gap = shape.box_gap(lo, hi);
                far[k] += usize::from(gap > 0.0);
                for q in 0..27 {
                    let t = Vec3::new((q % 3) as Real, (q / 3 % 3) as Real, (q / 9) as Real) / 2.0;
                    let point = lo + (hi - lo).component_mul(&t);
                    let (d, _) = shape.exact_distance(point);
                    assert!(
                        d >= gap - 1e-5,
                        "shape {k}: {d} at {point:?} below the gap {gap}"
                    );
                }
            }
            // A box that is one point: the gap is the point's distance for a plane and a sphere.
            if k < 2 {
                let point = Vec3::new(1.7, 2.1, -0.4);
                let (d, _) = shape.distance(point);
                assert!((shape.box_gap(point, point) - d).abs() < 1e-5, "shape {k}");
            }
        }
        assert!(
            far.iter().all(|&n| n > 50),
            "boxes apart from each shape: {far:?}"
        );
        // An open mesh (a disc) is inside wherever a point is behind it: no bound at all.
        let disc = crate::mesh::TriMesh::load(std::path::Path::new("meshes/disc.obj")).unwrap();
        let disc = MeshShape::new(&disc, 1.0);
        assert!(!disc.is_closed());
        let open = Shape::Mesh {
            mesh: Arc::new(disc),
            position: Vec3::zeros(),
            rotation: turn,
        };
        let far_away = Vec3::repeat(50.0);
        assert_eq!(open.box_gap(far_away, far_away), Real::NEG_INFINITY);
    }

    #[test]
    fn plane_distance_is_height_above_it() {
        let s = Shape::Plane {
            point: Vec3::new(0.0, 1.0, 0.0),
            normal: Vec3::y(),
        };
        let (d, n) = s.distance(Vec3::new(3.0, 0.25, -2.0));
        assert!(close(d, -0.75) && n == Vec3::y());
    }

    #[test]
    fn sphere_distance_and_normal() {
        let s = Shape::Sphere {
            center: Vec3::new(1.0, 0.0, 0.0),
            radius: 0.5,
        };
        let (d, n) = s.distance(Vec3::new(1.0, 2.0, 0.0));
        assert!(close(d, 1.5) && (n - Vec3::y()).norm() < 1e-6);
        assert!(close(s.distance(Vec3::new(1.2, 0.0, 0.0)).0, -0.3));
    }

    #[test]
    fn capsule_distance_to_its_segment() {
        let s = Shape::Capsule {
            a: Vec3::zeros(),
            b: Vec3::new(2.0, 0.0, 0.0),
            radius: 0.1,
        };
        assert!(close(s.distance(Vec3::new(1.0, 0.5, 0.0)).0, 0.4));
        let (d, n) = s.distance(Vec3::new(3.0, 0.0, 0.0));
        assert!(close(d, 0.9) && (n - Vec3::x()).norm() < 1e-6);
    }

    #[test]
    fn spinning_box_turns_about_its_center_and_its_surface_moves_with_it() {
        let mut c = Collider {
            material: ContactMaterial {
                static_friction: 0.5,
                kinetic_friction: 0.5,
                restitution: 0.0,
            },
            motion: Motion {
                velocity: Vec3::new(0.0, 0.0, 2.0),
                spin: Vec3::new(0.0, 0.0, std::f32::consts::PI),
            },
            ..Collider::new(Shape::Box {
                center: Vec3::new(1.0, 0.0, 0.0),
                half_extents: Vec3::new(1.0, 0.5, 0.25),
                rotation: Quat::identity(),
            })
        };
        c.advance(0.5);
        // Half a second: a quarter turn about z, and 1 m along z.
        assert!((c.shape.center() - Vec3::new(1.0, 0.0, 1.0)).norm() < 1e-6);
        let (d, _) = c.shape.distance(Vec3::new(1.0, 1.5, 1.0));
        assert!(close(d, 0.5), "the long axis now points up: {d}");
        let v = c.surface_velocity(Vec3::new(2.0, 0.0, 1.0));
        assert!((v - Vec3::new(0.0, std::f32::consts::PI, 2.0)).norm() < 1e-5);
    }

    #[test]
    fn box_distance_outside_inside_and_rotated() {
        let axis_aligned = Shape::Box {
            center: Vec3::zeros(),
            half_extents: Vec3::new(1.0, 0.5, 0.25),
            rotation: Quat::identity(),
        };
        let (d, n) = axis_aligned.distance(Vec3::new(0.0, 1.0, 0.0));
        assert!(close(d, 0.5) && (n - Vec3::y()).norm() < 1e-6);
        let (d, n) = axis_aligned.distance(Vec3::new(0.9, 0.0, 0.0));
        assert!(close(d, -0.1) && (n - Vec3::x()).norm() < 1e-6);
        // Corner region: distance to the corner point.
        assert!(close(
            axis_aligned.distance(Vec3::new(2.0, 1.5, 0.25)).0,
            2.0_f32.sqrt()
        ));
        let rotated = Shape::Box {
            center: Vec3::zeros(),
            half_extents: Vec3::new(1.0, 0.5, 0.25),
            rotation: Quat::from_axis_angle(&Vec3::z_axis(), std::f32::consts::FRAC_PI_2),
        };
        // Rotated a quarter turn about z, the long axis points along y.
        let (d, n) = rotated.distance(Vec3::new(0.0, 1.5, 0.0));
        assert!(close(d, 0.5) && (n - Vec3::y()).norm() < 1e-5);
    }

    /// Pseudo-random points in the cube of half side `half` about the origin.
    fn scattered(n: usize, half: Real) -> Vec<Vec3> {
        crate::collision::scattered(n, half, 7)
    }

    /// Eight points in SIMD lanes.
    fn gather(points: &[Vec3]) -> LaneVec<f32x8> {
        gather_vec3(points, &std::array::from_fn(|k| k))
    }

    /// A turn of `angle` rad about the axis `(x, y, z)`.
    fn turn(x: Real, y: Real, z: Real, angle: Real) -> Quat {
        Quat::from_axis_angle(&nalgebra::Unit::new_normalize(Vec3::new(x, y, z)), angle)
    }

    fn shapes() -> Vec<Shape> {
        let (a, b) = (Vec3::new(-0.3, 0.1, 0.2), Vec3::new(0.4, 0.5, -0.1));
        vec![
            Shape::Plane {
                point: Vec3::new(0.1, -0.2, 0.3),
                normal: Vec3::new(0.3, 1.0, -0.2).normalize(),
            },
            Shape::Sphere {
                center: Vec3::new(0.1, 0.2, -0.1),
                radius: 0.4,
            },
            Shape::Capsule { a, b, radius: 0.2 },
            // A capsule whose segment is a point.
            Shape::Capsule {
                a,
                b: a,
                radius: 0.3,
            },
            Shape::Box {
                center: Vec3::new(0.05, -0.1, 0.2),
                half_extents: Vec3::new(0.5, 0.25, 0.3),
                rotation: turn(1.0, 2.0, -0.5, 0.7),
            },
            // Equal half extents: the inside points on a diagonal tie between faces.
            Shape::Box {
                center: Vec3::zeros(),
                half_extents: Vec3::repeat(0.5),
                rotation: Quat::identity(),
            },
        ]
    }

    #[test]
    fn eight_lanes_give_each_point_the_bits_of_its_own_distance() {
        // Scattered points, and the points where the formulas branch: a sphere's centre, a
        // capsule's ends, a box's centre, its diagonals inside (ties), the faces, -0.0.
        let mut points = scattered(400, 1.0);
        points.extend([
            Vec3::new(0.1, 0.2, -0.1),
            Vec3::new(-0.3, 0.1, 0.2),
            Vec3::new(0.4, 0.5, -0.1),
            Vec3::new(0.05, -0.1, 0.2),
            Vec3::zeros(),
            Vec3::new(-0.0, 0.0, -0.0),
            Vec3::repeat(0.2),
            Vec3::new(0.2, -0.2, 0.1),
            Vec3::new(0.5, 0.0, 0.0),
            Vec3::new(0.5, 0.5, 0.5),
        ]);
        while !points.len().is_multiple_of(8) {
            points.push(Vec3::new(0.3, 0.3, 0.0));
        }
        for shape in shapes() {
            for chunk in points.chunks_exact(8) {
                let (d, n) = shape.distance_lanes(gather(chunk)).unwrap();
                for (k, (p, lane)) in chunk.iter().zip(lanes_vec3(n)).enumerate() {
                    let (d1, n1) = shape.distance(*p);
                    assert_eq!(d.as_array()[k].to_bits(), d1.to_bits(), "{shape:?} at {p}");
                    assert_eq!(
                        lane.map(Real::to_bits),
                        n1.map(Real::to_bits),
                        "{shape:?} at {p}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_turned_box_measures_in_its_own_frame() {
        // Against the axis-aligned box at the point turned back by the quaternion: the same
        // distance, the normal turned, the nearest surface point on the surface.
        let rotation = turn(1.0, 2.0, -0.5, 0.7);
        let (center, half) = (Vec3::new(0.05, -0.1, 0.2), Vec3::new(0.5, 0.25, 0.3));
        let turned = Shape::Box {
            center,
            half_extents: half,
            rotation,
        };
        let aligned = Shape::Box {
            center: Vec3::zeros(),
            half_extents: half,
            rotation: Quat::identity(),
        };
        let mut inside = 0;
        for p in scattered(2000, 1.0) {
            let (d, n) = turned.distance(p);
            let (d0, n0) = aligned.distance(rotation.inverse_transform_vector(&(p - center)));
            assert!((d - d0).abs() < 1e-5, "{d} {d0} at {p}");
            assert!((n - rotation * n0).norm() < 1e-5, "{n} at {p}");
            assert!((n.norm() - 1.0).abs() < 1e-5);
            assert!(turned.distance(p - n * d).0.abs() < 1e-5, "{p}");
            inside += usize::from(d < 0.0);
        }
        // About 3.75% of the cube is inside the box.
        assert!(inside > 40, "{inside} points inside");
    }

    #[test]
    fn a_carry_moves_points_as_nalgebra_turns_them_and_within_its_bound() {
        let mut collider = Collider::new(Shape::Sphere {
            center: Vec3::new(0.3, 0.8, -0.2),
            radius: 0.4,
        });
        collider.motion = Motion {
            velocity: Vec3::new(0.5, -1.0, 2.0),
            spin: Vec3::new(1.0, 3.0, -2.0),
        };
        let center = collider.shape.center();
        let m = collider.advance(0.01).unwrap();
        let points = scattered(64, 2.0);
        for chunk in points.chunks_exact(8) {
            let lanes = gather(chunk);
            let (moved, most) = (m.apply_lanes(lanes), m.carries_at_most_lanes(lanes, lanes));
            for (k, (&x, lane)) in chunk.iter().zip(lanes_vec3(moved)).enumerate() {
                let expected = center + m.shift + m.turn * (x - center);
                let y = m.apply(x);
                assert_eq!(y.map(Real::to_bits), expected.map(Real::to_bits));
                assert_eq!(lane.map(Real::to_bits), y.map(Real::to_bits));
                let bound = m.carries_at_most(x, x);
                assert_eq!(most.as_array()[k].to_bits(), bound.to_bits());
                assert!((y - x).norm() <= bound, "{x}");
            }
        }
    }
}
