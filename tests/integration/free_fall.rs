//! A free body falls as y0 − g t²/2.

use std::path::Path;
use supple::scene::parse_scene;
use supple::stats::FrameStats;

/// Drops a horizontal rigid rope from height `y0` for 1 s and returns how far its centre fell.
fn fall_from(y0: f32) -> (f32, f32) {
    let scene = format!(
        r#"
        [solver]
        dt = 0.01
        substeps = 10
        iterations = 5
        [[rope]]
        start = [0.0, {y0}, 0.0]
        end = [1.0, {y0}, 0.0]
        segments = 10
        mass = 1.0
        "#
    );
    let mut world = parse_scene(&scene, Path::new("free_fall.toml")).unwrap();
    for _ in 0..100 {
        world.step().unwrap();
    }
    let stats = FrameStats::measure(&world);
    (y0 - stats.bodies[0].center_of_mass[1], stats.max_strain)
}

#[test]
fn free_rope_follows_the_parabola_within_one_percent_after_one_second() {
    let analytic = 0.5 * 9.81 * 1.0 * 1.0;
    // From 100 m up, f32 positions hold few bits of a 1 ms step: the prediction's rounding must
    // not eat the speed.
    for y0 in [2.0, 100.0] {
        let (fallen, strain) = fall_from(y0);
        assert!(
            ((fallen - analytic) / analytic).abs() < 0.01,
            "from {y0} m: fell {fallen} m, analytic {analytic} m"
        );
        assert!(
            strain < 1e-4,
            "rigid segments keep their length while falling: strain {strain}"
        );
    }
}
