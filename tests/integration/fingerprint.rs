//! Stored fingerprints of the results (as box2d's determinism test keeps one hash).
//!
//! Each test runs a fixed world and hashes the bits of every particle's position. A change that
//! alters the results, however slightly, changes the hash: update the stored value only when the
//! change of results is intended, and say why in the commit.

use crate::common::workload_w;
use std::path::Path;
use supple::World;
use supple::params::SolverMethod;
use supple::scene::load_scene;

/// FNV-1a (64 bits) over the bit patterns of every coordinate of every position.
fn fingerprint(world: &World) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for x in &world.particles().x {
        for c in x.iter() {
            for byte in c.to_bits().to_le_bytes() {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
    hash
}

fn run(mut world: World, frames: u32) -> u64 {
    for _ in 0..frames {
        world.step().unwrap();
    }
    fingerprint(&world)
}

#[test]
fn workload_w_at_64_after_60_frames() {
    let gauss_seidel = run(workload_w(64, SolverMethod::GaussSeidel), 60);
    let colored = run(workload_w(64, SolverMethod::Colored), 60);
    assert_eq!(
        (gauss_seidel, colored),
        (0x77e4_99d0_7b3f_7211, 0x4fa6_112f_802e_1b34),
        "W at N = 64 (gauss-seidel, colored): hashes {gauss_seidel:#018x}, {colored:#018x}"
    );
}

/// The shipped scenes that together use every constraint family, collider shape and contact
/// kind: dihedral bending and wind (flag), self-collision (folds), a mesh collider
/// (cloth_on_mesh), the four soft-body models (soft-models), body-body contact (soft-hammock),
/// tethers and pins carried by a turning collider (cape), lift and gusts (flag-gusts), tearing
/// (curtain), elastic Neo-Hookean tets and rope bending (jelly).
#[test]
fn shipped_scenes_after_60_frames() {
    let expected: [(&str, u64); 9] = [
        ("flag", 0xb6ea_4034_b2e7_604c),
        ("folds", 0x366d_14ac_e364_fd2c),
        ("cloth_on_mesh", 0x4451_c413_721c_6718),
        ("soft-models", 0x96f4_6ae1_f4cc_bbd2),
        ("soft-hammock", 0x35fb_f5e9_64ea_e907),
        ("cape", 0x4722_3356_446c_b405),
        ("flag-gusts", 0x092c_8241_937b_dea6),
        ("curtain", 0x4b76_aab1_aa73_4d09),
        ("jelly", 0xaf7d_f350_11b7_dcd1),
    ];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let hashes: Vec<(&str, u64)> = expected
        .iter()
        .map(|&(name, _)| {
            let world = load_scene(&dir.join(format!("{name}.toml"))).unwrap().world;
            (name, run(world, 60))
        })
        .collect();
    assert_eq!(hashes, expected, "hashes: {hashes:#018x?}");
}
