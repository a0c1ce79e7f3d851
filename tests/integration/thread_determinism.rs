//! The colored and Jacobi solvers give bit-identical positions whatever the number of threads.

use crate::common::{on_threads, workload_w};
use std::path::Path;
use supple::World;
use supple::params::SolverMethod;
use supple::scene::parse_scene;

/// Steps `world` by `frames` frames in a pool of `threads` threads (a frame's substeps run in a
/// team of all of them for `colored` and `jacobi`), and returns the positions.
fn positions_after(mut world: World, frames: u32, threads: usize) -> Vec<[f32; 3]> {
    on_threads(threads, || {
        for _ in 0..frames {
            world.step().unwrap();
        }
    });
    world.particles().x.iter().map(|p| (*p).into()).collect()
}

/// `world` with its solver method replaced by `method`.
fn with_method(mut world: World, method: SolverMethod) -> World {
    let params = supple::SolverParams {
        method,
        ..world.params().clone()
    };
    world.set_params(params).unwrap();
    world
}

/// Asserts that the world `world(method)` makes, stepped `frames` frames, ends with the same
/// bits on 2 and 4 threads as on 1, for each parallel method.
fn assert_thread_independent(frames: u32, world: impl Fn(SolverMethod) -> World) {
    for method in [
        SolverMethod::Colored,
        SolverMethod::Jacobi,
        SolverMethod::ColoredChebyshev,
        SolverMethod::ColoredGlobal,
    ] {
        let one = positions_after(world(method), frames, 1);
        for threads in [2, 4] {
            assert!(
                positions_after(world(method), frames, threads) == one,
                "{method:?}: {threads} threads differ from 1"
            );
        }
    }
}

#[test]
fn cloth_is_bit_identical_for_1_2_and_4_threads() {
    // N = 64: both families are cut into 8 blocks, four per color, handed to the team's members
    // one by one (`colored` projects them, `jacobi` sums their corrections); its 4,096 particles
    // and its multipliers are not fewer than `MIN_CHUNK_LEN`, so the per-particle stages are
    // spread over the team too.
    assert_thread_independent(20, |method| workload_w(64, method));
}

/// The distance constraints projected SHAKE's way read the substep's start positions in every
/// block, and give the same bits on any thread count.
#[test]
fn cloth_projected_shakes_way_is_bit_identical_for_1_2_and_4_threads() {
    assert_thread_independent(20, |method| {
        let mut world = workload_w(64, method);
        let params = supple::SolverParams {
            shake: true,
            ..world.params().clone()
        };
        world.set_params(params).unwrap();
        world
    });
}

#[test]
fn scene_with_dihedral_or_isometric_bending_and_contacts_is_thread_independent() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/flag.toml");
    let dihedral = std::fs::read_to_string(&path).unwrap();
    let isometric = dihedral.replace("kind = \"dihedral\"", "kind = \"isometric\"");
    assert!(isometric != dihedral, "the flag's bending is dihedral");
    for text in [dihedral, isometric] {
        assert_thread_independent(30, |method| {
            with_method(parse_scene(&text, &path).unwrap(), method)
        });
    }
}

#[test]
fn soft_body_is_thread_independent() {
    // A cube of 8 x 8 x 8 cells, its edge and tet families each cut into blocks, dropped 0.2 m
    // onto a tilted plane so that it lands, squashes and rolls within the 40 frames.
    let world = |method| {
        let params = supple::params::SolverParams {
            method,
            ..Default::default()
        };
        let mut w = World::new(params).unwrap();
        let plane = supple::collision::Shape::Plane {
            point: supple::math::Vec3::new(0.0, -0.2, 0.0),
            normal: supple::math::Vec3::new(0.3, 1.0, 0.0).normalize(),
        };
        let material = supple::ContactMaterial {
            static_friction: 0.5,
            kinetic_friction: 0.4,
            restitution: 0.0,
        };
        w.add_collider(supple::Collider {
            material,
            ..supple::Collider::new(plane)
        })
        .unwrap();
        let cube = supple::SoftBodyDesc {
            name: "cube".into(),
            material: supple::SoftMaterial {
                resolution: 8,
                ..Default::default()
            },
            ..supple::SoftBodyDesc::new(supple::mesh::generate::cube(), 1.0)
        };
        w.add_soft_body(&cube).unwrap();
        assert!(
            w.constraints()
                .volume
                .blocks()
                .colors
                .iter()
                .any(|c| c.len() > 1)
        );
        w
    };
    assert_thread_independent(40, world);
}
