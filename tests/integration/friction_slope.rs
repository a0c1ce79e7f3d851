//! A cloth on a tilted plane stays put when `tan θ ≤ μ_s` (the static friction angle) and
//! slides with acceleration `g (sin θ − μ_k cos θ)` when it is steeper.

use std::path::Path;
use supple::scene::parse_scene;
use supple::stats::FrameStats;

/// Lays a small cloth on a plane tilted `degrees` about z with friction `mu`, runs `seconds`,
/// and returns how far its centre of mass moved down the slope, m.
fn slide(degrees: f32, mu: f32, seconds: f32) -> f32 {
    let theta = degrees.to_radians();
    let (s, c) = theta.sin_cos();
    // Plane normal (sin θ, cos θ, 0): the cloth is rotated by −θ about z to lie on it, one
    // thickness (1 cm) above.
    let scene = format!(
        r#"
        [solver]
        substeps = 20
        iterations = 4
        [[cloth]]
        resolution = [8, 8]
        size = [0.3, 0.3]
        center = [{cx}, {cy}, 0.0]
        rotation = [0.0, 0.0, {rot}]
        mass = 0.1
        shear = {{ model = "xpbd", compliance = 1e-6 }}
        bend = {{ model = "xpbd", compliance = 0.1, kind = "cross-distance" }}
        [[collider]]
        shape = "plane"
        normal = [{s}, {c}, 0.0]
        friction = {mu}
        "#,
        cx = 0.01 * s,
        cy = 0.01 * c,
        rot = -degrees,
    );
    let mut world = parse_scene(&scene, Path::new("slope.toml")).unwrap();
    let com = |w: &supple::World| FrameStats::measure(w).bodies[0].center_of_mass;
    let start = com(&world);
    for _ in 0..(seconds * 60.0).round() as u32 {
        world.step().unwrap();
    }
    let end = com(&world);
    // Down the slope: (cos θ, −sin θ, 0).
    (end[0] - start[0]) * c - (end[1] - start[1]) * s
}

#[test]
fn high_friction_holds_the_cloth_and_low_friction_lets_it_slide_as_coulomb_predicts() {
    let held = slide(20.0, 0.8, 1.0);
    assert!(held.abs() < 1e-3, "μ = 0.8 on 20°: moved {held} m");
    let slid = slide(20.0, 0.05, 1.0);
    let theta = 20f32.to_radians();
    let analytic = 0.5 * 9.81 * (theta.sin() - 0.05 * theta.cos());
    println!("μ = 0.05 on 20°: slid {slid} m in 1 s, analytic {analytic} m");
    assert!(
        ((slid - analytic) / analytic).abs() < 0.05,
        "slid {slid} m, analytic {analytic} m"
    );
}

#[test]
fn the_cloth_starts_to_slide_at_the_static_friction_angle() {
    // μ = 0.5: the friction angle is atan(0.5) = 26.6°.
    let below = slide(24.0, 0.5, 1.0);
    let above = slide(29.0, 0.5, 1.0);
    println!("μ = 0.5: moved {below} m at 24°, {above} m at 29°");
    assert!(below.abs() < 1e-3, "24° < 26.6°: moved {below} m");
    assert!(above > 0.05, "29° > 26.6°: moved only {above} m");
}
