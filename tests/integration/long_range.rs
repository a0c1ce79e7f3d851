//! Long-range attachments (`long_range`): every free particle stays within its rest geodesic
//! distance of its pin, with every solver method and whatever the thread count, and the cloth
//! stretches less than without them at the same iterations.

use crate::common::on_threads;
use supple::stats::FrameStats;
use supple::{ClothDesc, RopeDesc, SolverMethod, SolverParams, Stiffness, Vec3, World};

/// W at `n` x `n` ([`ClothDesc::workload_w`]) with `iterations` per substep, with or without
/// tethers.
fn w(n: u32, method: SolverMethod, iterations: u32, long_range: bool) -> World {
    let params = SolverParams {
        method,
        iterations,
        ..SolverParams::default()
    };
    let mut world = World::new(params).unwrap();
    let desc = ClothDesc {
        long_range,
        ..ClothDesc::workload_w(n, Stiffness::default())
    };
    world.add_cloth(&desc).unwrap();
    world
}

/// The largest strain over `frames` frames.
fn max_strain(world: &mut World, frames: u32) -> f32 {
    (0..frames)
        .map(|_| {
            world.step().unwrap();
            FrameStats::measure(world).max_strain
        })
        .fold(0.0, f32::max)
}

/// Asserts that no tethered particle is farther from its pin than its rest distance (beyond f32
/// rounding of the distance).
fn assert_tethers_hold(world: &World, what: &str) {
    let (t, x) = (&world.constraints().tether, &world.particles().x);
    assert!(!t.is_empty());
    for c in 0..t.len() {
        let l = (x[t.ids[c] as usize] - x[t.anchor[c] as usize]).norm();
        assert!(
            l <= t.rest[c] * (1.0 + 1e-5),
            "{what}: tether {c} at {l} m, past its rest {} m",
            t.rest[c]
        );
    }
}

#[test]
fn tethers_hold_after_every_frame_with_every_method() {
    for method in SolverMethod::ALL {
        let mut world = w(24, method, 2, true);
        for frame in 0..60 {
            world.step().unwrap();
            assert_tethers_hold(&world, &format!("{method:?} frame {frame}"));
        }
    }
}

#[test]
fn tethers_lower_the_strain_of_a_cloth_hanging_from_two_corners() {
    for method in SolverMethod::ALL {
        let without = max_strain(&mut w(32, method, 2, false), 90);
        let with = max_strain(&mut w(32, method, 2, true), 90);
        assert!(
            with < without,
            "{method:?}: max strain {with} with tethers, {without} without"
        );
    }
}

#[test]
fn a_rope_tethered_to_both_ends_gets_one_tether_per_free_particle_to_the_nearer_end() {
    let mut world = World::new(SolverParams::default()).unwrap();
    let desc = RopeDesc {
        pin_start: true,
        pin_end: true,
        long_range: true,
        ..RopeDesc::new(Vec3::zeros(), Vec3::x() * 1.0, 10, 1.0)
    };
    world.add_rope(&desc).unwrap();
    let t = &world.constraints().tether;
    assert_eq!(t.ids, (1..10).collect::<Vec<u32>>());
    for c in 0..t.len() {
        let i = t.ids[c];
        let (pin, d) = if i <= 5 { (0, i) } else { (10, 10 - i) };
        // Particle 5 is halfway: rounding of its position picks either end.
        assert!(t.anchor[c] == pin || i == 5, "particle {i}");
        assert!((t.rest[c] - d as f32 * 0.1).abs() < 1e-6, "particle {i}");
    }
    world.step_frames(30).unwrap();
    assert_tethers_hold(&world, "rope");
}

#[test]
fn tethered_cloth_is_bit_identical_for_1_and_2_threads() {
    for method in [
        SolverMethod::Colored,
        SolverMethod::Jacobi,
        SolverMethod::ColoredChebyshev,
    ] {
        let run = |threads| {
            let mut world = w(64, method, 3, true);
            on_threads(threads, || world.step_frames(20).unwrap());
            world.particles().x.clone()
        };
        assert!(run(1) == run(2), "{method:?}");
    }
}
