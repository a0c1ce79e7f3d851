//! Air on cloth: a banner hanging from a horizontal pole in a steady wind settles at the angle
//! where the wind's moment about the pole balances its weight's, with drag alone and with lift;
//! in gusts (`[solver] wind = { .. }`) the flag of the shipped scene keeps moving, the same way
//! on every run.

use std::path::Path;
use supple::scene::load_scene;
use supple::{BendKind, ClothDesc, Orientation, SolverParams, Stiffness, Vec3, World};

const SIDE: f32 = 0.5;
const MASS: f32 = 0.1;
const WIND: f32 = 3.0;
const TOP: f32 = 2.0;

/// A square banner of `SIDE` m and `MASS` kg, rigid in stretch, shear and bending (a plate),
/// hanging in the XY plane from its top edge (pinned at y = `TOP`) in a wind of `WIND` m/s along
/// +z; returns its mean angle from the vertical over the last 2 of 8 s, radians.
fn banner_angle(drag: f32, lift: f32) -> f32 {
    let params = SolverParams {
        wind: Vec3::z() * WIND,
        damping: 2.0,
        ..SolverParams::default()
    };
    let mut world = World::new(params).unwrap();
    let n = 10;
    let center = Vec3::new(0.0, TOP - SIDE / 2.0, 0.0);
    let grid = ClothDesc::grid([n, n], [SIDE; 2], center, Orientation::Vertical, MASS).unwrap();
    let desc = ClothDesc {
        pin: (0..n as usize).collect(),
        bend: Some((Stiffness::default(), BendKind::Dihedral)),
        drag,
        lift,
        ..grid
    };
    let banner = world.add_cloth(&desc).unwrap();
    world.step_frames(360).unwrap();
    let bottom = (n * (n - 1)) as usize..(n * n) as usize;
    let mut sum = 0.0;
    for _ in 0..120 {
        world.step().unwrap();
        let x = &world.positions(banner)[bottom.clone()];
        let mid = x.iter().sum::<Vec3>() / x.len() as f32;
        sum += mid.z.atan2(TOP - mid.y);
    }
    sum / 120.0
}

/// The angle `θ` from the vertical where a rigid plate of area `A`, mass `m`, hinged at its top
/// edge, is in balance in a horizontal wind `U` normal to the edge: the air presses on it with
/// `(drag U² cos²θ + lift U² cos θ sin²θ) A` normal to it (the normal parts of the drag and lift
/// of `aerodynamic_force` at angle of attack `90° − θ`), at its middle, as the weight `m g` acts
/// at its middle: `(drag cos²θ + lift cos θ sin²θ) U² A = m g sin θ`. Solved by bisection.
fn expected_angle(drag: f32, lift: f32) -> f32 {
    let k = f64::from(WIND * WIND * SIDE * SIDE / (MASS * 9.81));
    let (drag, lift) = (f64::from(drag), f64::from(lift));
    let excess = |t: f64| (drag * t.cos().powi(2) + lift * t.cos() * t.sin().powi(2)) * k - t.sin();
    let (mut lo, mut hi) = (0.0, std::f64::consts::FRAC_PI_2);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if excess(mid) > 0.0 {
            lo = mid
        } else {
            hi = mid
        }
    }
    lo as f32
}

#[test]
fn a_banner_in_steady_wind_settles_where_the_moments_balance() {
    for (drag, lift) in [(0.3, 0.0), (0.6, 0.0), (0.3, 0.5)] {
        let (got, expected) = (banner_angle(drag, lift), expected_angle(drag, lift));
        println!(
            "drag {drag}, lift {lift}: {:.2}° (balance {:.2}°)",
            got.to_degrees(),
            expected.to_degrees()
        );
        assert!(
            (got - expected).abs() < 0.1f32.to_radians(),
            "drag {drag}, lift {lift}: {}° against {}°",
            got.to_degrees(),
            expected.to_degrees()
        );
    }
}

/// The tip of the flag of `scenes/flag-gusts.toml` over frames 120 to 240: how far it ranges
/// (m), and its positions.
fn gusty_tip() -> (f32, Vec<Vec3>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/flag-gusts.toml");
    let mut world = load_scene(&path).unwrap().world;
    let flag = world.body_named("flag").unwrap();
    world.step_frames(120).unwrap();
    let tip = world.positions(flag).len() - 1;
    let path: Vec<Vec3> = (0..120)
        .map(|_| {
            world.step().unwrap();
            world.positions(flag)[tip]
        })
        .collect();
    let lo = path.iter().fold(path[0], |lo, x| lo.inf(x));
    let hi = path.iter().fold(path[0], |hi, x| hi.sup(x));
    ((hi - lo).norm(), path)
}

#[test]
fn a_flag_in_gusts_keeps_moving_and_the_gusts_repeat() {
    let (range, path) = gusty_tip();
    // The gusts reach 3 m/s on a 5 m/s wind: the tip sweeps tens of centimetres.
    assert!(range > 0.1, "the tip ranged over {range} m in 2 s");
    let still = path
        .windows(2)
        .filter(|w| (w[1] - w[0]).norm() < 1e-4)
        .count();
    assert_eq!(still, 0, "the tip stood still for {still} frames");
    assert!(gusty_tip().1 == path, "a second run differs");
}
