//! The scene benchmark: a scene run headless, its median frame and where that frame's time went
//! ([`StageMs`]).

use super::step::WARMUP_FRAMES;
use crate::scene::Scene;
use crate::timing::StageMs;
use crate::world::{SimError, World};
use std::time::Instant;

/// Frames timed per scene when `--frames` is not given (1 s at 60 Hz).
pub const TIMED_FRAMES: u32 = 60;

/// One row of the scene benchmark.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneResult {
    /// The scene's name (its file stem).
    pub scene: String,
    /// Threads of the rayon pool the benchmark ran in.
    pub threads: usize,
    /// Median wall time of one timed frame, ms.
    pub ms_per_frame: f64,
    /// Simulated time per wall time: the frame's `dt` over `ms_per_frame` (1 is real time).
    pub realtime_factor: f64,
    /// Where the median frame's time went, ms per stage (they add up to `ms_per_frame`).
    pub stage_ms: StageMs,
}

/// The median of `frames` timed frames of `world`, after [`WARMUP_FRAMES`] untimed ones: its wall
/// time, ms, and its stages' times (the frame ranked `frames / 2` from the fastest).
pub fn median_frame(world: &mut World, frames: u32) -> Result<(f64, StageMs), SimError> {
    world.step_frames(WARMUP_FRAMES)?;
    let mut timed = Vec::with_capacity(frames as usize);
    for _ in 0..frames {
        let t = Instant::now();
        world.step()?;
        timed.push((1e3 * t.elapsed().as_secs_f64(), *world.stage_ms()));
    }
    timed.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(timed
        .get(timed.len() / 2)
        .copied()
        .unwrap_or((0.0, StageMs::default())))
}

/// Runs `scene` in the current rayon pool for [`WARMUP_FRAMES`] and then `frames` timed frames
/// ([`median_frame`]).
pub fn bench_scene(scene: Scene, frames: u32) -> Result<SceneResult, SimError> {
    let Scene { name, mut world } = scene;
    let (ms_per_frame, stage_ms) = median_frame(&mut world, frames)?;
    Ok(SceneResult {
        scene: name,
        threads: rayon::current_num_threads(),
        ms_per_frame,
        realtime_factor: 1e3 * f64::from(world.params.dt) / ms_per_frame,
        stage_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_frame_of_a_scene_is_split_over_its_stages() {
        let scene = crate::scene::load_scene(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scenes/folds.toml"
        )))
        .unwrap();
        let r = bench_scene(scene, 3).unwrap();
        assert_eq!(r.scene, "folds");
        assert!(r.ms_per_frame > 0.0);
        let dt_ms = r.realtime_factor * r.ms_per_frame;
        assert!((dt_ms - 1e3 / 60.0).abs() < 1e-3, "{dt_ms}");
        // folds: one cloth with self-collision falling on the ground, no tets, no shape matching.
        for stage in ["stretch", "collision_detection", "contact"] {
            assert!(r.stage_ms.get(stage).unwrap() > 0.0, "{stage}");
        }
        // The stages are laps of a clock read inside the timed step.
        assert!(r.stage_ms.total() <= r.ms_per_frame * (1.0 + 1e-12));
    }
}
