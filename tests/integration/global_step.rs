//! `colored-global` follows changes of the pins (its invariants, rigid motion untouched and
//! momentum kept, are unit tests of `solver::global`).

use supple::params::SolverMethod;
use supple::{BendKind, ClothDesc, Orientation, SolverParams, Stiffness, Vec3, World};

/// A stiff square plate (`D` = 1 N·m, isometric hinges) of `n` x `n` particles, 0.5 m and
/// 0.1 kg, with the given pins and gravity, stepped by `method` at 20 x 10.
fn plate(n: u32, pins: Vec<usize>, gravity: Vec3, method: SolverMethod) -> World {
    let params = SolverParams {
        substeps: 20,
        iterations: 10,
        method,
        gravity,
        ..SolverParams::default()
    };
    let mut desc = ClothDesc::grid(
        [n, n],
        [0.5, 0.5],
        Vec3::new(0.0, 1.0, 0.0),
        Orientation::Horizontal,
        0.1,
    )
    .unwrap();
    desc.pin = pins;
    let stiff = Stiffness::Elastic {
        stiffness: 1.0,
        damping: 0.0,
    };
    desc.bend = Some((stiff, BendKind::Isometric));
    let mut world = World::new(params).unwrap();
    world.add_cloth(&desc).unwrap();
    world
}

#[test]
fn a_particle_pinned_during_a_run_stays_where_it_was_pinned() {
    // The factorization holds the free particles of its time: pinning one more must make it
    // again, or the pinned particle keeps its row and the global step moves it.
    let mut world = plate(
        17,
        (0..17).collect(),
        Vec3::new(0.0, -9.81, 0.0),
        SolverMethod::ColoredGlobal,
    );
    let body = world.body_named("cloth0").unwrap();
    world.step_frames(10).unwrap();
    let tip = 17 * 17 - 1;
    world.pin(body, tip).unwrap();
    let held = world.positions(body)[tip];
    world.step_frames(20).unwrap();
    assert_eq!(world.positions(body)[tip], held);
}
