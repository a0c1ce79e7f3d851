//! The world the viewer tests render.

use std::path::Path;
use supple::World;
use supple::scene::load_scene;

/// The default scene: a cloth pinned at two corners above the ground. A debug build solves it
/// with fewer substeps and iterations, so that 60 frames take seconds; the rendering is what is
/// under test.
pub fn default_world() -> World {
    let mut world = load_scene(Path::new("scenes/default.toml")).unwrap().world;
    if cfg!(debug_assertions) {
        let params = supple::SolverParams {
            substeps: 2,
            iterations: 2,
            ..world.params().clone()
        };
        world.set_params(params).unwrap();
    }
    world
}

/// Name of the environment variable that says a machine has no Vulkan on purpose.
pub const NO_VULKAN: &str = "SUPPLE_NO_VULKAN";

/// Called when a viewer test finds no Vulkan adapter (`why`): the test is skipped when
/// `SUPPLE_NO_VULKAN=1` says the machine has no Vulkan on purpose, and fails otherwise (CI
/// installs Mesa's lavapipe and must render).
pub fn no_vulkan(why: &str) {
    assert!(
        std::env::var(NO_VULKAN).is_ok_and(|v| v == "1"),
        "no Vulkan adapter ({why}): install mesa-vulkan-drivers, or set {NO_VULKAN}=1 to skip the viewer tests on purpose"
    );
    println!("SKIPPED ({NO_VULKAN}=1): no Vulkan adapter ({why})");
}
