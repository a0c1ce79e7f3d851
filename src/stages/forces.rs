//! Stage 2: external forces (gravity and wind).

use crate::bodies::Body;
use crate::math::{LaneVec, Lanes, Real, Vec3};
use crate::particles::ParticleSet;
use crate::solver::Team;
use crate::solver::schedule::LANES;
use crate::solver::simd::{self, Batch, gather_vec3};
use crate::wind::{Gust, WindField};

/// The wind of a substep: the mean wind, its gusts if any, and the time, s.
#[derive(Clone, Copy, Debug)]
pub struct Wind<'a> {
    /// Mean wind velocity, m/s.
    pub mean: Vec3,
    /// Gusts on top of it.
    pub gust: Option<&'a Gust>,
    /// Simulated time, s.
    pub time: Real,
}

impl Wind<'_> {
    /// True when there is no air motion at all (no mean wind and no gusts).
    pub fn is_calm(&self) -> bool {
        self.mean == Vec3::zeros() && self.gust.is_none_or(|g| g.amplitude == 0.0)
    }
}

/// The aerodynamic force on a triangle of unit normal `n` and area `area` (m²) in air moving at
/// `u` (m/s) relative to it: drag `½ρC_d · A · (u·n̂)|u·n̂| · n̂` (the quadratic normal drag of
/// Bridson's and Müller's cloth demos; `drag` is `½ρC_d`, kg/m³) plus lift
/// `½ρC_l · A · (u·n̂) (|u| n̂ − (u·n̂) û)`, of magnitude `½ρC_l A |u|² sin α cos α` for the angle of
/// attack `α` between the flow and the triangle, across the flow on the side it pushes (the
/// flat-plate lift of FleX's cloth, `lift` is `½ρC_l`, kg/m³). Both are unchanged when `n̂` flips.
#[cfg(test)]
pub fn aerodynamic_force(u: Vec3, n: Vec3, area: Real, drag: Real, lift: Real) -> Vec3 {
    let lanes = LaneVec::from;
    aerodynamic_lanes(lanes(u), lanes(n), area, drag, lift).into()
}

/// [`aerodynamic_force`] for one triangle or one per lane (no lift where `|u|` is 0).
#[inline(always)]
fn aerodynamic_lanes<T: Lanes>(
    u: LaneVec<T>,
    n: LaneVec<T>,
    area: T,
    drag: Real,
    lift: Real,
) -> LaneVec<T> {
    let un = u.dot(n);
    let f = n * (T::splat(drag) * area * un * un.abs());
    if lift == 0.0 {
        return f;
    }
    let (eps, zero) = (T::splat(Real::EPSILON), T::splat(0.0));
    let speed = u.norm_squared().sqrt();
    let inv_speed = speed.select_gt(eps, T::splat(1.0) / speed, zero);
    let scale = speed.select_gt(eps, T::splat(lift) * area * un, zero);
    f + (n * speed - u * (un * inv_speed)) * scale
}

/// The force of the wind `field` on each of the three particles of a triangle at `x` moving at
/// `v`, one triangle per lane: [`aerodynamic_force`] with the triangle's air-relative velocity
/// `u = wind − v̄` (the wind taken at its centroid), over three; zero for a degenerate triangle.
#[inline(always)]
fn triangle_force<T: Lanes>(
    x: &[LaneVec<T>; 3],
    v: &[LaneVec<T>; 3],
    field: &WindField,
    drag: Real,
    lift: Real,
) -> LaneVec<T> {
    let cross = (x[1] - x[0]).cross(x[2] - x[0]);
    let double_area = cross.norm_squared().sqrt();
    let (eps, zero) = (T::splat(Real::EPSILON), T::splat(0.0));
    let n = cross * double_area.select_gt(eps, T::splat(1.0) / double_area, zero);
    let third = T::splat(1.0 / 3.0);
    let air = field.at_lanes((x[0] + x[1] + x[2]) * third);
    let u = air - (v[0] + v[1] + v[2]) * third;
    // A degenerate triangle's normal is zero, and so is its force.
    aerodynamic_lanes(u, n, double_area * T::splat(0.5), drag, lift) * third
}

/// Adds the aerodynamic force of `wind` on every cloth triangle to the particles' `force`
/// ([`aerodynamic_force`], with the triangle's air-relative velocity `u = wind − v̄`, the wind
/// taken at its centroid), spread equally over its three particles: eight triangles at a time as
/// SIMD vectors (those of [`simd::path`]; AVX's for AVX and wider), the rest one by one with the
/// same arithmetic.
pub fn accumulate_wind(ps: &mut ParticleSet, body: &Body, wind: &Wind) {
    if body.drag <= 0.0 && body.lift == 0.0 {
        return;
    }
    let field = WindField::new(wind.mean, wind.gust, wind.time);
    match simd::path() {
        // SAFETY: the processor has the path, so AVX.
        #[cfg(target_arch = "x86_64")]
        simd::SimdPath::Avx2 | simd::SimdPath::Avx512 => unsafe {
            accumulate_wind_avx(ps, body, &field)
        },
        _ => accumulate_wind_as::<wide::f32x8>(ps, body, &field),
    }
}

/// [`accumulate_wind_as`] with AVX vectors, compiled for AVX.
///
/// # Safety
/// The processor has AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn accumulate_wind_avx(ps: &mut ParticleSet, body: &Body, field: &WindField) {
    accumulate_wind_as::<crate::solver::simd::avx::F32x8>(ps, body, field);
}

/// [`accumulate_wind`] with the triangles eight at a time as vectors `V`.
#[inline(always)]
// Plain loops, no closures over vectors: this must compile inside the AVX caller.
#[allow(clippy::needless_range_loop)]
fn accumulate_wind_as<V: Batch>(ps: &mut ParticleSet, body: &Body, field: &WindField) {
    let s = body.particles.start;
    let (drag, lift) = (body.drag, body.lift);
    let triangles = body.particle_triangles().chunks_exact(LANES);
    let tail = triangles.remainder();
    for tris in triangles {
        let zero = V::splat(0.0);
        let (mut x, mut v) = ([LaneVec([zero; 3]); 3], [LaneVec([zero; 3]); 3]);
        for k in 0..3 {
            let mut particles = [0; LANES];
            for l in 0..LANES {
                particles[l] = s + tris[l][k] as usize;
            }
            (x[k], v[k]) = (
                gather_vec3(&ps.x, &particles),
                gather_vec3(&ps.v, &particles),
            );
        }
        let f = triangle_force(&x, &v, field, drag, lift).0;
        let (fx, fy, fz) = (f[0].to_array(), f[1].to_array(), f[2].to_array());
        for l in 0..LANES {
            let f = Vec3::new(fx[l], fy[l], fz[l]);
            for k in 0..3 {
                ps.force[s + tris[l][k] as usize] += f;
            }
        }
    }
    for t in tail {
        let ids = t.map(|i| s + i as usize);
        let (x, v) = (ids.map(|i| ps.x[i].into()), ids.map(|i| ps.v[i].into()));
        let f: Vec3 = triangle_force::<Real>(&x, &v, field, drag, lift).into();
        for i in ids {
            ps.force[i] += f;
        }
    }
}

/// `v ← v + h (g + w f)` for every free particle, then clears the accumulated forces. The wind
/// is accumulated on this thread, the particles are then spread over `team`. Only the wind
/// accumulates forces, so in calm air every `f` is 0 and the pass adds `h g` without reading or
/// clearing them.
pub fn apply_external_forces(
    ps: &mut ParticleSet,
    bodies: &[Body],
    gravity: Vec3,
    wind: &Wind,
    h: Real,
    team: &Team,
) {
    if wind.is_calm() {
        let step = gravity * h;
        team.for_each_chunk((&mut ps.v[..], &ps.inv_mass[..]), |_, (v, inv_mass)| {
            for (v, &w) in v.iter_mut().zip(inv_mass) {
                if w > 0.0 {
                    *v += step;
                }
            }
        });
        return;
    }
    for body in bodies {
        accumulate_wind(ps, body, wind);
    }
    let fields = (&mut ps.v[..], &mut ps.force[..], &ps.inv_mass[..]);
    team.for_each_chunk(fields, |_, (v, force, inv_mass)| {
        for ((v, f), &w) in v.iter_mut().zip(force).zip(inv_mass) {
            if w > 0.0 {
                *v += (gravity + *f * w) * h;
            }
            *f = Vec3::zeros();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drag_pushes_along_the_normal_and_lift_across_the_flow() {
        // A plate at 30° to a 2 m/s flow along x.
        let alpha: Real = 30.0_f32.to_radians();
        let n = Vec3::new(-alpha.sin(), alpha.cos(), 0.0);
        let u = Vec3::x() * 2.0;
        let drag = aerodynamic_force(u, n, 0.5, 0.6, 0.0);
        let un = u.dot(&n);
        assert!((drag - n * (0.6 * 0.5 * un * un.abs())).norm() < 1e-6);
        let lift = aerodynamic_force(u, n, 0.5, 0.0, 0.4);
        assert!(lift.dot(&u).abs() < 1e-6, "lift is across the flow");
        let expected = 0.4 * 0.5 * 4.0 * alpha.sin() * alpha.cos();
        assert!(
            (lift.norm() - expected).abs() < 1e-6,
            "{} vs {expected}",
            lift.norm()
        );
        assert_eq!(
            aerodynamic_force(u, -n, 0.5, 0.6, 0.4),
            aerodynamic_force(u, n, 0.5, 0.6, 0.4)
        );
        assert_eq!(
            aerodynamic_force(u, Vec3::y(), 0.5, 0.0, 0.4),
            Vec3::zeros(),
            "edge-on: α = 0"
        );
    }

    /// A flag of 36 triangles (four batches of eight and four left over) a few frames into a
    /// gusty wind: the forces accumulated eight triangles at a time, with the portable vectors
    /// and (where the processor has it) AVX, are the bits of the triangles taken one by one, and
    /// they push the flag downwind.
    #[test]
    fn batched_wind_gives_the_bits_of_one_triangle_at_a_time() {
        let text = r#"
            [solver]
            wind = { mean = [5.0, 0.0, 1.0], amplitude = 3.0, period = 1.2, wavelength = 4.0 }
            [[cloth]]
            name = "flag"
            resolution = [7, 4]
            mass = 0.1
            size = [1.5, 1.0]
            orientation = "vertical"
            pin_edges = ["i=0"]
            drag = 0.6
            lift = 0.3
        "#;
        let mut world = crate::scene::parse_scene(text, std::path::Path::new("flag.toml")).unwrap();
        for _ in 0..5 {
            world.step().unwrap();
        }
        let body = &world.bodies()[0];
        assert_eq!(body.triangles.len(), 36);
        let gust = Gust {
            amplitude: 3.0,
            period: 1.2,
            wavelength: 4.0,
            seed: 3,
        };
        let wind = Wind {
            mean: Vec3::new(5.0, 0.0, 1.0),
            gust: Some(&gust),
            time: 0.7,
        };
        let field = WindField::new(wind.mean, wind.gust, wind.time);
        let mut want = world.particles().clone();
        let s = body.particles.start;
        for t in &body.triangles {
            let ids = t.map(|i| s + i as usize);
            let (x, v) = (ids.map(|i| want.x[i].into()), ids.map(|i| want.v[i].into()));
            let f: Vec3 = triangle_force::<Real>(&x, &v, &field, body.drag, body.lift).into();
            for i in ids {
                want.force[i] += f;
            }
        }
        let bits = |ps: &ParticleSet| -> Vec<u32> {
            ps.force
                .iter()
                .flat_map(|f| [f.x, f.y, f.z].map(f32::to_bits))
                .collect()
        };
        let mut portable = world.particles().clone();
        accumulate_wind_as::<wide::f32x8>(&mut portable, body, &field);
        assert_eq!(bits(&portable), bits(&want), "portable");
        let mut best = world.particles().clone();
        accumulate_wind(&mut best, body, &wind);
        assert_eq!(bits(&best), bits(&want), "the path run");
        let total: Vec3 = want.force.iter().sum();
        assert!(total.dot(&wind.mean) > 0.0, "{total:?}");
    }
}
