//! Strain limiting (`stretch_limit`): a compliant cloth or rope that stretches well past the
//! limit without it stays within it, with every solver method and whatever the thread count,
//! and a bad limit is refused with its key.

use crate::common::on_threads;
use supple::constraints::strain_limit::TOLERANCE;
use supple::scene::parse_scene;
use supple::{SolverMethod, World};

/// The default scene's cloth (two corners pinned, swinging down; 20 substeps x 2 iterations)
/// at 24 x 24 with a compliant stretch (1e-3 m/N), with `extra` keys on the cloth, solved by
/// `method`.
fn swinging_cloth(method: SolverMethod, extra: &str) -> World {
    let text = format!(
        r#"
        [solver]
        substeps = 20
        iterations = 2
        method = "{}"
        [[cloth]]
        resolution = [24, 24]
        size = [1.6, 1.6]
        center = [0.0, 1.8, 0.0]
        mass = 0.5
        pin = [[0, 0], [-1, 0]]
        stretch = {{ model = "xpbd", compliance = 1e-3 }}
        shear = {{ model = "xpbd", compliance = 1e-3 }}
        bend = {{ model = "xpbd", compliance = 100.0, kind = "dihedral" }}
        {extra}
        "#,
        method.name()
    );
    parse_scene(&text, std::path::Path::new("swinging.toml")).unwrap()
}

/// The largest stretch `(ℓ − d) / d` of a stretch or shear edge after each of `frames` frames
/// (compressed edges, which the report's `max_strain` also counts, are not limited).
fn max_stretch(world: &mut World, frames: u32) -> f32 {
    (0..frames)
        .map(|_| {
            world.step().unwrap();
            let (edges, x) = (&world.constraints().stretch, &world.particles().x);
            (0..edges.len())
                .map(|c| edges.strain(x, c))
                .fold(0.0, f32::max)
        })
        .fold(0.0, f32::max)
}

/// The largest stretch an edge limited to `limit` may show: the limit, with the projection's
/// tolerance on the length ([`TOLERANCE`]) and the rounding of `f32` positions.
fn bound(limit: f32) -> f32 {
    (1.0 + limit) * (1.0 + TOLERANCE) - 1.0 + 1e-6
}

#[test]
fn a_compliant_cloth_stays_within_its_limit_with_every_method() {
    let free = max_stretch(&mut swinging_cloth(SolverMethod::GaussSeidel, ""), 120);
    assert!(free > 0.15, "without a limit the cloth stretches {free}");
    for method in SolverMethod::ALL {
        let mut world = swinging_cloth(method, "stretch_limit = 0.1");
        let limited = max_stretch(&mut world, 120);
        assert!(
            limited <= bound(0.1),
            "{method:?}: {limited} with a limit of 0.1 (without: {free})"
        );
    }
}

#[test]
fn a_compliant_rope_stays_within_its_limit() {
    let rope = |extra: &str| {
        let text = format!(
            "[[rope]]\nstart = [0.0, 2.0, 0.0]\nend = [1.0, 2.0, 0.0]\nsegments = 20\nmass = 1.0\n\
             pin = [\"start\"]\nstretch = {{ model = \"xpbd\", compliance = 1e-3 }}\n{extra}\n"
        );
        parse_scene(&text, std::path::Path::new("rope.toml")).unwrap()
    };
    let free = max_stretch(&mut rope(""), 120);
    let limited = max_stretch(&mut rope("stretch_limit = 0.05"), 120);
    assert!(free > 0.1, "without a limit the rope stretches {free}");
    assert!(limited <= bound(0.05), "{limited} with a limit of 0.05");
}

#[test]
fn the_limit_has_its_own_stage_and_a_bad_one_is_refused_with_its_key() {
    let mut world = swinging_cloth(SolverMethod::GaussSeidel, "stretch_limit = 0.1");
    world.step_frames(5).unwrap();
    assert!(world.stage_ms().get("stretch_limit").unwrap() > 0.0);
    let text = "[[cloth]]\nresolution = [4, 4]\nmass = 0.1\nstretch_limit = -0.1\n";
    let err = parse_scene(text, std::path::Path::new("bad.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("stretch_limit") && err.contains(">= 0"),
        "{err}"
    );
}

#[test]
fn a_limited_cloth_gives_the_same_bits_on_one_and_two_threads() {
    let run = |threads: usize| {
        on_threads(threads, || {
            let mut world = swinging_cloth(SolverMethod::Colored, "stretch_limit = 0.1");
            world.step_frames(30).unwrap();
            world.particles().x.clone()
        })
    };
    assert_eq!(run(1), run(2));
}
