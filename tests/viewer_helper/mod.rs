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
