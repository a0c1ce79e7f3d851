//! Soak: every shipped scene for 3,000 frames (50 s of simulated time) in release mode, checked
//! every frame: positions finite and strains under the divergence limit (the step's own checks),
//! no particle centre inside a collider (a particle's sphere sinks by less than its thickness),
//! and bounded energy: in a passive scene (no wind, no moving collider, no inflated body) the
//! mechanical energy `KE + PE` never grows past its start in any frame, since constraints,
//! contacts and damping can only take energy out; in a driven scene, whose energy the drivers
//! feed, no particle moves faster than the drivers (wind, the collider's surface) plus free fall
//! over the scene's size, twice over.
//!
//! That speed is no bound in a passive scene: a whip carries the energy of the whole cloth into
//! its light free end. W at N = 128 swings its free corner at 11.8 to 14.2 m/s at frames 84 to
//! 139 (the bound's formula gives 13.8) depending on the constraint order and the substeps, 13.2
//! m/s at 20 and 40 substeps in the build order of the grid's edges (`docs/performance.md`), its
//! energy never above the start.
//!
//! Ignored by a plain `cargo test` (it takes minutes); `.ci/run` runs it with
//! `cargo test --release --test integration soak -- --ignored`.

use crate::common::on_threads;
use std::path::Path;
use supple::World;
use supple::constraints::volume::enclosed_volume;
use supple::scene::load_scene;
use supple::stats::FrameStats;

const FRAMES: u32 = 3000;

/// `Σ ½ m v² + m g·(−y)` over the free particles, J (gravity along −y).
fn mechanical_energy(world: &World) -> f64 {
    let ps = world.particles();
    let g = -f64::from(world.params().gravity.y);
    (0..ps.len())
        .filter(|&i| ps.inv_mass[i] > 0.0)
        .map(|i| {
            let m = 1.0 / f64::from(ps.inv_mass[i]);
            0.5 * m * f64::from(ps.v[i].norm_squared()) + m * g * f64::from(ps.x[i].y)
        })
        .sum()
}

fn soak(name: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenes/{name}.toml"));
    let mut world = load_scene(&path).unwrap().world;
    let p = world.params().clone();
    let driven_speed = world
        .colliders()
        .iter()
        .map(|c| c.motion.velocity.norm() + c.motion.spin.norm() * 2.0)
        // The three waves of a gust reach twice its amplitude together.
        .fold(
            p.wind.norm() + p.gust.map_or(0.0, |g| 2.0 * g.amplitude),
            f32::max,
        );
    // An inflated body (a pressure factor other than 1) starts away from its rest volume: its
    // gas does work on it, like a driver.
    let pressure = &world.constraints().pressure;
    let x = &world.particles().x;
    let inflated = (0..pressure.len()).any(|c| {
        let volume = enclosed_volume(x, &pressure.triangles[c]);
        (volume - pressure.target[c]).abs() > 1e-4 * pressure.target[c].abs()
    });
    let passive = driven_speed == 0.0 && !inflated;
    // The farthest a particle can fall: the diagonal of the bodies' box (a pinned cloth swings
    // its free corner down by its diagonal), and a metre more.
    let x0 = &world.particles().x;
    let lo = x0.iter().fold(x0[0], |lo, x| lo.inf(x));
    let hi = x0.iter().fold(x0[0], |hi, x| hi.sup(x));
    let height = (hi - lo).norm() + 1.0;
    let speed_limit = 2.0 * (driven_speed + (2.0 * p.gravity.norm() * height).sqrt());
    let start = mechanical_energy(&world);
    // f32 positions and the stop of a resting body leave round-off: 1 mJ or 0.1% of |E|.
    let slack = 1e-3f64.max(1e-3 * start.abs());
    let thickness = world
        .particles()
        .radius
        .iter()
        .copied()
        .fold(f32::MAX, f32::min);
    let (mut most_energy, mut fastest, mut deepest) = (start, 0.0f32, 0.0f32);
    for frame in 1..=FRAMES {
        if let Err(e) = world.step() {
            panic!("{name}: {e}");
        }
        let ps = world.particles();
        fastest = ps.v.iter().map(|v| v.norm()).fold(fastest, f32::max);
        deepest = deepest.max(FrameStats::measure(&world).max_penetration);
        let energy = mechanical_energy(&world);
        most_energy = most_energy.max(energy);
        if passive {
            assert!(
                energy - start <= slack,
                "{name}: the energy grew by {} J over its start of {start} J at frame {frame}",
                energy - start
            );
        } else {
            assert!(
                fastest <= speed_limit,
                "{name}: a particle moves at {fastest} m/s at frame {frame} (limit {speed_limit})"
            );
        }
        assert!(
            deepest <= 0.5 * thickness,
            "{name}: a particle centre is {deepest} m inside a collider at frame {frame}"
        );
    }
    eprintln!(
        "{name}: energy at start {start:.4} J, most {most_energy:.4} J; fastest {fastest:.3} m/s \
         (limit {speed_limit:.1}, driven scenes only); deepest centre {deepest:.2e} m; {} \
         colliders, passive {passive}",
        world.colliders().len()
    );
}

macro_rules! soak_tests {
    ($($test:ident => $scene:literal),* $(,)?) => {
        $(
            #[test]
            #[ignore = "soak: minutes; .ci/run runs it with --ignored"]
            fn $test() {
                // One solver thread: the harness runs two soaks at once, and a scene on the
                // colored solver would keep a second thread spinning between its colors beside
                // the other soak (cape took over 60 s beside W at N = 128, 8 s alone). The
                // colored solver gives the same bits on any number of threads
                // (`thread_determinism.rs`), so the soak checks the same motion.
                on_threads(1, || soak($scene));
            }
        )*
    };
}

// The harness starts the tests in the order of their names, two at a time on two cores. W at
// N = 128 is the longest soak, so its name sorts first: it runs beside the others instead of
// after them.
soak_tests! {
    big_w128 => "w128",
    cape => "cape",
    cloth_on_mesh => "cloth_on_mesh",
    curtain => "curtain",
    default_scene => "default",
    drape => "drape",
    flag => "flag",
    flag_gusts => "flag-gusts",
    folds => "folds",
    jelly => "jelly",
    rope => "rope",
    soft_hammock => "soft-hammock",
    soft_models => "soft-models",
    soft_torus => "soft-torus",
    tablecloth => "tablecloth",
    tethers => "tethers",
    twist => "twist",
    w64 => "w64",
}

#[test]
fn every_shipped_scene_is_soaked() {
    let source = include_str!("soak.rs");
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(
            source.contains(&format!("=> \"{stem}\"")),
            "scenes/{stem}.toml has no soak test"
        );
    }
}
