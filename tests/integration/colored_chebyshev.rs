//! `colored-chebyshev` among contacts: the Chebyshev extrapolation starts each iteration from
//! the positions the contacts left, so a cloth on colliders stretches as with `gauss-seidel`.

use std::path::Path;
use supple::params::SolverMethod;
use supple::scene::load_scene;

/// The median over frames 201 to 300 of the largest strain of the shipped scene `name` run
/// with `method`.
fn settled_strain(name: &str, method: SolverMethod) -> f32 {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenes/{name}.toml"));
    let mut world = load_scene(&path).unwrap().world;
    let params = supple::params::SolverParams {
        method,
        ..world.params().clone()
    };
    world.set_params(params).unwrap();
    world.step_frames(200).unwrap();
    let mut strain: Vec<f32> = (0..100)
        .map(|_| {
            world.step().unwrap();
            supple::stats::FrameStats::measure(&world).max_strain
        })
        .collect();
    strain.sort_by(f32::total_cmp);
    strain[50]
}

/// Issue 37's bar for a method meant for every scene: the settled largest strain within 10% of
/// the one-thread `gauss-seidel` run's. Measured: `cloth_on_mesh` 6.76% against 6.31%, `drape`
/// 5.28% against 4.89%. When each iteration's extrapolation started from the positions before
/// the contacts, `cloth_on_mesh` reached 14.3%.
#[test]
fn colored_chebyshev_keeps_the_strain_of_cloth_on_colliders() {
    for name in ["cloth_on_mesh", "drape"] {
        let reference = settled_strain(name, SolverMethod::GaussSeidel);
        let chebyshev = settled_strain(name, SolverMethod::ColoredChebyshev);
        eprintln!("{name}: gauss-seidel {reference}, colored-chebyshev {chebyshev}");
        assert!(
            chebyshev < 1.1 * reference,
            "{name}: colored-chebyshev {chebyshev}, gauss-seidel {reference}"
        );
    }
}

/// A substep of two iterations is never extrapolated (the acceleration starts at the third), so
/// `colored-chebyshev` gives `colored`'s bits there, while skipping the iterates it would record
/// (on the default scene, 20 x 2, they cost 0.1 ms a frame on one thread and 0.2 ms on two,
/// in `supple bench scenes`' pack stage).
#[test]
fn colored_chebyshev_at_two_iterations_is_colored() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/default.toml");
    let run = |method| {
        let mut world = load_scene(&path).unwrap().world;
        assert_eq!(world.params().iterations, 2);
        let params = supple::params::SolverParams {
            method,
            ..world.params().clone()
        };
        world.set_params(params).unwrap();
        world.step_frames(30).unwrap();
        world.particles().x.clone()
    };
    assert!(run(SolverMethod::ColoredChebyshev) == run(SolverMethod::Colored));
}
