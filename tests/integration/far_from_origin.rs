//! The material does not change far from the origin: a stiff XPBD rope hung 1 km away settles
//! to Hooke's law as it does at the origin.

use supple::{RopeDesc, SolverParams, Stiffness, Vec3, World};

const SEGMENTS: u32 = 20;
const MASS: f32 = 0.21;
const LENGTH: f32 = 1.0;
const G: f32 = 9.81;
const COMPLIANCE: f32 = 1e-5;

/// Extension (m) of the 20-segment rope hung from `top` after 10 s of 20 substeps x 40
/// iterations, and Hooke's law's: segment k from the top carries the `SEGMENTS − k` particles
/// below it, so the whole rope stretches by `α m g Σ_{k=1}^{n} k`.
fn rope_extension(top: Vec3) -> (f32, f32) {
    let params = SolverParams {
        substeps: 20,
        iterations: 40,
        damping: 2.0,
        ..SolverParams::default()
    };
    let mut world = World::new(params).unwrap();
    let rope = RopeDesc {
        pin_start: true,
        stretch: Stiffness::Xpbd {
            compliance: COMPLIANCE,
            damping: 0.0,
        },
        ..RopeDesc::new(top, top - Vec3::y() * LENGTH, SEGMENTS, MASS)
    };
    let handle = world.add_rope(&rope).unwrap();
    world.step_frames(600).unwrap();
    let x = world.positions(handle);
    let length: f32 = x.windows(2).map(|s| (s[1] - s[0]).norm()).sum();
    let m = MASS / (SEGMENTS + 1) as f32;
    let n = SEGMENTS as f32;
    (length - LENGTH, COMPLIANCE * m * G * n * (n + 1.0) / 2.0)
}

#[test]
fn stiff_rope_a_kilometre_away_stretches_as_at_the_origin() {
    for top in [Vec3::zeros(), Vec3::new(1000.0, 100.0, -500.0)] {
        let (e, analytic) = rope_extension(top);
        eprintln!("top {top:?}: extension {e:e} m, Hooke {analytic:e} m");
        assert!(
            ((e - analytic) / analytic).abs() < 0.02,
            "rope hung at {top:?}: extension {e} m, Hooke's law {analytic} m"
        );
    }
}
