//! Stages where the literature puts them: damping decays by the same factor
//! per second at any substep count and does not scale a static load; shape matching inside the
//! iterations never leaves a body inside a collider.

use supple::shape_matching::ClusterMaterial;
use supple::{Collider, RopeDesc, Shape, SolverParams, Stiffness, Vec3, World};

/// Two particles flying apart at ±1 m/s, without gravity, joined by a segment so soft (compliance
/// 1e6 m/N) that it pulls with 1e-6 N per metre of stretch: all their velocity is deformation.
fn flying_apart(substeps: u32, damping: f32, body_damping: f32) -> (World, supple::BodyHandle) {
    let params = SolverParams {
        substeps,
        gravity: Vec3::zeros(),
        damping,
        ..SolverParams::default()
    };
    let mut world = World::new(params).unwrap();
    let rope = RopeDesc {
        stretch: Stiffness::Xpbd {
            compliance: 1e6,
            damping: 0.0,
        },
        damping: body_damping,
        ..RopeDesc::new(Vec3::zeros(), Vec3::x() * 0.1, 1, 0.2)
    };
    let body = world.add_rope(&rope).unwrap();
    world
        .set_velocities(body, &[-Vec3::x(), Vec3::x()])
        .unwrap();
    (world, body)
}

/// Relative speed of the pair after `t` = 0.5 s, m/s (2 at the start).
fn relative_speed_after_half_a_second(substeps: u32, damping: f32, body_damping: f32) -> f32 {
    let (mut world, body) = flying_apart(substeps, damping, body_damping);
    world.step_frames(30).unwrap();
    let v = world.velocities(body);
    (v[1] - v[0]).x
}

#[test]
fn global_damping_decays_as_exp_minus_c_t_at_any_substep_count() {
    let c = 3.0;
    let expected = 2.0 * (-c * 0.5f32).exp();
    for substeps in [5, 10, 40] {
        let v = relative_speed_after_half_a_second(substeps, c, 0.0);
        assert!(
            (v - expected).abs() < 1e-3 * expected,
            "{substeps} substeps: {v} m/s, 2 exp(-c t) = {expected} m/s"
        );
    }
}

#[test]
fn body_damping_decays_as_exp_minus_c_t_at_any_substep_count() {
    // A fraction k per 1/600 s is the rate c = −600 ln(1 − k) per second.
    let k: f32 = 0.01;
    let c = -600.0 * (1.0 - k).ln();
    let expected = 2.0 * (-c * 0.5).exp();
    for substeps in [5, 10, 40] {
        let v = relative_speed_after_half_a_second(substeps, 0.0, k);
        assert!(
            (v - expected).abs() < 1e-3 * expected + 1e-5,
            "{substeps} substeps: {v} m/s, 2 exp(-c t) = {expected} m/s"
        );
    }
}

/// A rope of 11 particles lying on the ground, with strong global damping: once it rests, the
/// ground holds its weight, `Σ λ / h² = m g` over the contacts (an XPBD multiplier is the
/// constraint's impulse times h). Damping applied after gravity held up `1 − exp(−c h)` of it
/// (3.3% at c = 20/s, h = 1/600 s).
#[test]
fn resting_body_weighs_m_g_on_the_ground() {
    let params = SolverParams {
        damping: 20.0,
        ..SolverParams::default()
    };
    let h = params.h();
    let mut world = World::new(params).unwrap();
    world
        .add_collider(Collider::new(Shape::Plane {
            point: Vec3::zeros(),
            normal: Vec3::y(),
        }))
        .unwrap();
    let (mass, radius) = (0.22, 0.01);
    let start = Vec3::new(-0.25, radius, 0.0);
    let rope = RopeDesc {
        thickness: radius,
        ..RopeDesc::new(start, start + Vec3::x() * 0.5, 10, mass)
    };
    world.add_rope(&rope).unwrap();
    world.step_frames(120).unwrap();
    let contacts = &world.constraints().contact;
    let force: f32 = contacts.lambda.iter().sum::<f32>() / (h * h);
    let weight = mass * 9.81;
    assert!(
        (force - weight).abs() < 1e-3 * weight,
        "the ground holds {force} N of a {weight} N rope"
    );
}

/// A rope made one shape-matching cluster (stiffness 0.5 per 1/600 s), dropped across a sphere
/// with 4 iterations per substep: after every frame each particle's surface (its centre less its
/// thickness) is outside the sphere, within 1 µm. Matched after the contacts, the cluster pulled
/// particles back into the sphere.
#[test]
fn shape_matched_body_never_ends_inside_a_collider() {
    let params = SolverParams {
        iterations: 4,
        ..SolverParams::default()
    };
    let mut world = World::new(params).unwrap();
    let (center, radius) = (Vec3::new(0.0, 0.5, 0.0), 0.3);
    world
        .add_collider(Collider::new(Shape::Sphere { center, radius }))
        .unwrap();
    let thickness = 0.02;
    let rope = RopeDesc {
        thickness,
        stretch: Stiffness::Xpbd {
            compliance: 1e-3,
            damping: 0.0,
        },
        shape: Some(ClusterMaterial {
            stiffness: 0.5,
            ..ClusterMaterial::default()
        }),
        ..RopeDesc::new(
            Vec3::new(-0.5, 1.0, 0.05),
            Vec3::new(0.5, 1.0, 0.05),
            20,
            0.2,
        )
    };
    let body = world.add_rope(&rope).unwrap();
    let mut deepest: f32 = 0.0;
    for _ in 0..120 {
        world.step().unwrap();
        for x in world.positions(body) {
            deepest = deepest.max(radius + thickness - (x - center).norm());
        }
    }
    assert!(
        deepest < 1e-6,
        "a particle's surface was {deepest} m inside the sphere"
    );
}
