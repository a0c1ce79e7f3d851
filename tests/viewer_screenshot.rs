//! The offscreen screenshot shows a lit cloth, and the cloth moves between frames.
#![cfg(feature = "viewer")]

use supple::World;
use supple::bodies::cloth::{BendKind, ClothMaterial, add_cloth, grid};
use supple::collision::{Collider, Shape};
use supple::constraints::Stiffness;
use supple::math::Vec3;
use supple::params::SolverParams;
use supple::viewer::{ViewerError, screenshot};

/// A 1.6 m square cloth pinned at two corners, 1.8 m above the ground, over a sphere; coarse,
/// so that 60 frames take seconds in a debug build.
fn world() -> World {
    let mut world = World::new(SolverParams {
        substeps: 5,
        iterations: 2,
        ..SolverParams::default()
    });
    let n = 16;
    let (x, triangles) = grid(n, n, [1.6, 1.6], Vec3::new(0.0, 1.8, 0.0), false);
    let material = ClothMaterial {
        stretch: Stiffness::default(),
        shear: Stiffness::Xpbd {
            compliance: 1e-6,
            damping: 0.0,
        },
        bend: Some((
            Stiffness::Xpbd {
                compliance: 0.5,
                damping: 0.0,
            },
            BendKind::Dihedral,
        )),
        thickness: 0.01,
        damping: 0.01,
        drag: 0.0,
    };
    let pinned = [0, n as usize - 1];
    let body = add_cloth(
        &mut world.particles,
        &mut world.constraints,
        0,
        "sheet",
        &x,
        triangles,
        &pinned,
        0.5,
        &material,
        |a, b| a.abs_diff(b) != 1 && a.abs_diff(b) != n,
    );
    world.bodies.push(body);
    for shape in [
        Shape::Plane {
            point: Vec3::zeros(),
            normal: Vec3::y(),
        },
        Shape::Sphere {
            center: Vec3::new(0.0, 0.6, 0.4),
            radius: 0.4,
        },
    ] {
        world.add_collider(Collider {
            shape,
            static_friction: 0.5,
            kinetic_friction: 0.5,
            restitution: 0.0,
            stiffness: Stiffness::default(),
        });
    }
    world
}

/// Pixels that differ from the top-right corner, which the scene never covers: the background.
fn differs_from_background(image: &image::RgbImage) -> usize {
    let background = image.get_pixel(image.width() - 1, 0).0;
    image
        .pixels()
        .filter(|p| p.0.iter().zip(background).any(|(a, b)| a.abs_diff(b) > 8))
        .count()
}

#[test]
fn screenshot_shows_the_cloth_and_it_moves() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("frame1.png");
    let later = dir.path().join("frame60.png");
    match screenshot(world(), "viewer test", 1, &first) {
        Err(e) if matches!(e.downcast_ref(), Some(ViewerError::NoAdapter(_))) => {
            println!(
                "SKIPPED: no Vulkan adapter ({e}); install mesa-vulkan-drivers to run this test"
            );
            return;
        }
        result => result.unwrap(),
    }
    screenshot(world(), "viewer test", 60, &later).unwrap();
    let a = image::open(&first).unwrap().to_rgb8();
    let b = image::open(&later).unwrap().to_rgb8();
    assert_eq!(a.dimensions(), b.dimensions());
    let (covered, total) = (
        differs_from_background(&a),
        (a.width() * a.height()) as usize,
    );
    assert!(
        covered > total / 20,
        "only {covered} of {total} pixels differ from the background"
    );
    let changed = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert!(
        changed > total / 100,
        "only {changed} pixels changed between frame 1 and frame 60"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "temporary files left: {leftovers:?}");
    if let Ok(keep) = std::env::var("SUPPLE_KEEP_SCREENSHOTS") {
        std::fs::copy(&first, format!("{keep}/frame1.png")).unwrap();
        std::fs::copy(&later, format!("{keep}/frame60.png")).unwrap();
    }
}
