//! Bodies collide by their surfaces: a body much heavier than a hammock
//! stays in it instead of passing between its particles, and a cloth dropped on a coarse soft
//! body stays on top of it. And a rigid body on the ground comes to rest there, whatever the
//! substeps (nothing injects energy).

use std::path::Path;
use supple::World;
use supple::math::{Real, Vec3};
use supple::scene::parse_scene;

/// A 0.2 kg, 40 x 40 hammock pinned at its four corners, 1.5 m wide at 1 m, over the ground,
/// and one `[[soft_body]]` table: `body`. 20 substeps of 10 iterations: with the default 10 x 10
/// the cloth's stretch constraints do not converge under 2 kg and more, and the hammock sags to
/// the ground (strain 240%).
fn hammock_with(body: &str) -> World {
    hammock("", &body_table(body))
}

/// A `[[soft_body]]` table named `body` with the keys `body`.
fn body_table(body: &str) -> String {
    format!("[[soft_body]]\nname = \"body\"\n{body}")
}

/// The hammock of [`hammock_with`] with the extra cloth keys `keys`, and the tables `tables`.
fn hammock(keys: &str, tables: &str) -> World {
    let scene = format!(
        r#"
[solver]
substeps = 20
iterations = 10

[[cloth]]
name = "hammock"
resolution = [40, 40]
size = [1.5, 1.5]
center = [0.0, 1.0, 0.0]
mass = 0.2
pin = [[0, 0], [-1, 0], [0, -1], [-1, -1]]
damping = 0.02
{keys}

{tables}

[[collider]]
shape = "plane"
"#
    );
    // Meshes are found from the repository's `scenes/` folder: `../meshes` and
    // `../../shared/meshes`.
    let at = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/surface_contact.toml");
    parse_scene(&scene, &at).unwrap()
}

fn positions(world: &World, name: &str) -> Vec<Vec3> {
    world.positions(world.body_named(name).unwrap())
}

fn lowest(x: &[Vec3]) -> Real {
    x.iter().map(|p| p.y).fold(Real::MAX, Real::min)
}

/// The body's centre (the mean of its particles).
fn center(world: &World) -> Vec3 {
    let body = positions(world, "body");
    body.iter().sum::<Vec3>() / body.len() as Real
}

/// Checks that the body ended over the hammock, and both clear of the ground: the body's centre
/// within the pins' square, its lowest particle off the ground, and the hammock's lowest
/// particle more than halfway up to its pins (1 m). To sag that far the hammock, 1.06 m from
/// pin to middle along a diagonal, must stretch that diagonal by 10% on average; the hammock's
/// stretch is rigid.
fn ends_over_the_hammock(world: &World, what: &str) {
    let (c, body) = (center(world), lowest(&positions(world, "body")));
    let cloth = lowest(&positions(world, "hammock"));
    assert!(
        c.x.abs() < 0.75 && c.z.abs() < 0.75 && body > 0.0 && cloth > 0.5,
        "{what}: the body ended at {c}, lowest {body} m, the hammock's lowest at {cloth} m"
    );
}

/// The keys of a rounded box, `model` "rigid" or "tets", of `mass` kg, 40 cm wide, 40 cm above
/// the hammock.
fn box_keys(model: &str, mass: Real) -> String {
    format!(
        r#"
mesh = "../meshes/rounded-box.obj"
model = "{model}"
resolution = 6
fit = 0.4
mass = {mass}
thickness = 0.01
center = [0.0, 1.4, 0.0]
rotation = [30.0, 20.0, 10.0]
"#
    )
}

/// A rounded box of `ratio` times the hammock's mass ([`box_keys`]) dropped in it.
fn box_of(model: &str, ratio: Real) -> World {
    hammock_with(&box_keys(model, 0.2 * ratio))
}

/// The largest strain `|ℓ − d| / d` of the hammock's stretch and shear constraints (those of
/// its particles: a `tets` body's edges are stretch constraints too, which the world's
/// [`FrameStats::max_strain`](supple::stats::FrameStats::max_strain) counts).
fn hammock_strain(world: &World) -> Real {
    let hammock = world
        .body(world.body_named("hammock").unwrap())
        .particles
        .clone();
    let stretch = &world.constraints().stretch;
    let x = &world.particles().x;
    (0..stretch.len())
        .filter(|&c| hammock.contains(&(stretch.ids()[c][0] as usize)))
        .map(|c| stretch.strain(x, c).abs())
        .fold(0.0, Real::max)
}

/// How the world moved over a run: the largest hammock strain ([`hammock_strain`]) in the two
/// halves of the last `2 w` frames, the mean speed of the
/// body's particles over the last `w` frames (m/s), and the largest gain of the
/// mechanical energy `Σ m (½ v² − g·x)` of the free particles over its start (J).
struct Late {
    strain: [Real; 2],
    speed: Real,
    energy_gain: Real,
}

/// Steps `world` for `frames` frames and measures [`Late`] over windows of `w` frames; with a
/// body, fails as soon as its centre is below the hammock's lowest particle (it passed through,
/// or rolled over the edge).
fn run_measuring(world: &mut World, frames: u32, w: u32, what: &str) -> Late {
    let energy = |world: &World| {
        let ps = world.particles();
        (0..ps.len())
            .filter(|&i| ps.inv_mass[i] > 0.0)
            .map(|i| (0.5 * ps.v[i].norm_squared() + 9.81 * ps.x[i].y) / ps.inv_mass[i])
            .sum::<Real>()
    };
    let start = energy(world);
    let mut late = Late {
        strain: [0.0; 2],
        speed: 0.0,
        energy_gain: Real::MIN,
    };
    for frame in 0..frames {
        world.step().unwrap();
        if world.body_named("body").is_some() {
            let (c, cloth) = (center(world), lowest(&positions(world, "hammock")));
            assert!(
                c.y > cloth,
                "{what}: at frame {frame} the body's centre is at {c}, below the hammock ({cloth} m)"
            );
        }
        late.energy_gain = late.energy_gain.max(energy(world) - start);
        let left = frames - frame;
        if left <= 2 * w {
            let half = usize::from(left <= w);
            late.strain[half] = late.strain[half].max(hammock_strain(world));
        }
        if left <= w && world.body_named("body").is_some() {
            let v = world.velocities(world.body_named("body").unwrap());
            let speed = v.iter().map(|v| v.norm()).sum::<Real>() / v.len() as Real;
            late.speed += speed / w as Real;
        }
    }
    late
}

/// Checks that bodies of `model` and 10, 100 and 1000 times the hammock's mass rest in it:
/// after 150 frames (2.5 s) each box is over the hammock and both are clear of the ground
/// ([`ends_over_the_hammock`]), the box nearly still (its particles' mean speed over the last 30
/// frames under a tenth of the 2.4 m/s at which it lands), the mechanical energy never above its
/// start (contacts inject none), and the hammock's strain in each of the last two windows of 30
/// frames at most twice the empty hammock's in the same frames: the hammock is inextensible
/// (rigid stretch) and pinned at its rest corners, so it carries the load by its shape, not by
/// stretching; what strain remains is the solver's residual, which the load may not make grow.
fn rest_in_the_hammock(model: &str) {
    let (frames, w) = (150, 30);
    let own = run_measuring(&mut hammock("", ""), frames, w, "empty").strain;
    let own = own[0].max(own[1]);
    for ratio in [10.0, 100.0, 1000.0] {
        let what = format!("{model} x{ratio}");
        let mut world = box_of(model, ratio);
        let late = run_measuring(&mut world, frames, w, &what);
        ends_over_the_hammock(&world, &what);
        assert!(
            late.speed < 0.24,
            "{what}: still moving at {} m/s",
            late.speed
        );
        assert!(
            late.energy_gain <= 0.0,
            "{what}: the energy rose {} J above its start",
            late.energy_gain
        );
        assert!(
            late.strain[0] <= 2.0 * own && late.strain[1] <= 2.0 * own,
            "{what}: hammock strain {:?} in the last windows of {w} frames, empty {own}",
            late.strain
        );
    }
}

/// [`rest_in_the_hammock`] with rigid boxes. Unless contacts between bodies take the supporting
/// side's inverse mass as at most the supported one's (`contact::supported`), the 2 kg box
/// bounces off (strain 49% at each bounce) and leaves over the edge, and the 20 and 200 kg boxes
/// stretch the hammock 230% to 450% and sink to 0.2 to 0.5 m above the ground. (Unless the
/// centre of mass of a shape-matching cluster is summed from offsets, `shape_matching.rs`, the
/// rigid boxes hang at their start for the whole run.)
#[test]
fn rigid_bodies_of_10_to_1000_times_the_hammock_mass_rest_in_it() {
    rest_in_the_hammock("rigid");
}

/// [`rest_in_the_hammock`] with tets boxes. Before `contact::supported` they stayed over the
/// hammock, but stretched it 230% (20 kg) to 300% (200 kg) and the 200 kg box lay on the ground.
#[test]
fn tets_bodies_of_10_to_1000_times_the_hammock_mass_rest_in_it() {
    rest_in_the_hammock("tets");
}

/// The keys of a 40 kg rigid Stanford bunny (resolution 8, 2 cm thick), 1.5 m up.
const HEAVY_BUNNY: &str = r#"
mesh = "../../shared/meshes/stanford-bunny.obj"
model = "rigid"
resolution = 8
fit = 0.4
mass = 40.0
thickness = 0.02
center = [0.0, 1.5, 0.0]
"#;

/// At the default 10 x 10: a 40 kg rigid Stanford bunny on the 0.2 kg hammock
/// ends over it, clear of the ground ([`ends_over_the_hammock`]), nearly still and without
/// gaining energy. Before `contact::supported` the bag lay on the ground (the hammock stretched
/// 262%) from frame 30 on.
#[test]
fn a_40_kg_rigid_bunny_rests_in_the_hammock() {
    let mut world = hammock_with(HEAVY_BUNNY);
    let mut params = world.params().clone();
    (params.substeps, params.iterations) = (10, 10);
    world.set_params(params).unwrap();
    let late = run_measuring(&mut world, 150, 30, "the 40 kg bunny");
    ends_over_the_hammock(&world, "the 40 kg bunny");
    assert!(late.speed < 0.24, "the bunny moves at {} m/s", late.speed);
    assert!(late.energy_gain <= 0.0, "energy +{} J", late.energy_gain);
}

/// The heavy bunny ([`HEAVY_BUNNY`]) dropped on the ground, at 20, 40 and 80 substeps x 10,
/// lands at 4.9 m/s after 0.5 s. By 2.5 s it rests: the mean speed of its particles over the
/// last 30 frames under 2% of that, its centre within 10 cm of where it landed, and its
/// mechanical energy never above its start. Unless the corrections of a shape-matching cluster
/// are balanced (their mass-weighted mean taken off, in `shape_matching`), the rounding of its
/// centre pushes a body that contacts deform the same way every iteration: the bunny slides away
/// at 4.6 m/s (20 substeps),
/// 14 m/s (40) and 71 m/s (80) after 1.5 s, accelerating.
#[test]
fn a_rigid_bunny_dropped_on_the_ground_comes_to_rest_at_20_to_80_substeps() {
    bunny_dropped_on_the_ground_comes_to_rest("gauss-seidel");
}

/// [`a_rigid_bunny_dropped_on_the_ground_comes_to_rest_at_20_to_80_substeps`] with
/// `colored-chebyshev`, whose extrapolation leaves the shape matching's corrections out. When it
/// extrapolated them, pushing the bunny by `ω` times each correction, the bunny gained 1.58 J
/// at 80 substeps.
#[test]
fn a_rigid_bunny_comes_to_rest_under_chebyshev_extrapolation() {
    bunny_dropped_on_the_ground_comes_to_rest("colored-chebyshev");
}

/// The test of [`a_rigid_bunny_dropped_on_the_ground_comes_to_rest_at_20_to_80_substeps`] with
/// the solver `method`.
fn bunny_dropped_on_the_ground_comes_to_rest(method: &str) {
    for substeps in [20, 40, 80] {
        let scene = format!(
            "[solver]\nsubsteps = {substeps}\niterations = 10\nmethod = \"{method}\"\n{}\n[[collider]]\nshape = \"plane\"\n",
            body_table(HEAVY_BUNNY)
        );
        let at = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/surface_contact.toml");
        let mut world = parse_scene(&scene, &at).unwrap();
        let id = world.body_named("body").unwrap();
        let energy = |world: &World| {
            let (x, v) = (world.positions(id), world.velocities(id));
            x.iter()
                .zip(v)
                .map(|(x, v)| 0.5 * v.norm_squared() + 9.81 * x.y)
                .sum::<Real>()
                * (40.0 / x.len() as Real)
        };
        let center = |world: &World| {
            let x = world.positions(id);
            x.iter().sum::<Vec3>() / x.len() as Real
        };
        let start = energy(&world);
        let (frames, window) = (150, 30);
        let (mut landed, mut speed, mut gain) = (None, 0.0, Real::MIN);
        for frame in 0..frames {
            world.step().unwrap();
            gain = gain.max(energy(&world) - start);
            if frame == 35 {
                landed = Some(center(&world));
            }
            if frame >= frames - window {
                let v = world.velocities(id);
                speed += v.iter().map(|v| v.norm()).sum::<Real>() / (v.len() * window) as Real;
            }
        }
        let (landed, end) = (landed.unwrap(), center(&world));
        let drift = ((end - landed).x.powi(2) + (end - landed).z.powi(2)).sqrt();
        assert!(
            speed < 0.02 * 4.9 && drift < 0.1 && gain <= 0.0,
            "{method}, {substeps} substeps: mean speed {speed} m/s, moved {drift} m from {landed} to {end}, energy +{gain} J"
        );
    }
}

/// A hammock with a finite membrane stiffness `E t` = 20 kN/m holding a 200 kg rigid box has a
/// finite sag, estimated by a circular membrane of radius R = 0.75 m clamped at its rim and
/// loaded by a rigid disc of radius a = 0.2 m: with the tension `E t ε` and the strain `ε = θ²/2`
/// of a cone of slope θ, the weight is carried at the disc's rim, `m g = π a E t θ³`, and the
/// disc sinks `θ (R − a)` = 0.30 m. A hammock pinned at its corners only, with free edges, is
/// softer than that clamped rim, so its sag is at least the estimate and within twice it. Not
/// met: `contact::supported` gives the hammock the box's inverse mass in the contacts, so at the
/// solver's fixed point the cloth feels only the share `m_cloth / m_box` of the load: the
/// lowest particle ends 0.124 m below the pins (strain 6-7%, as with rigid stretch); without it
/// the box stretched the cloth 250% and lay on the ground.
#[test]
#[ignore = "known limit: a compliant hammock under a heavy body sags as if empty, see the doc comment"]
fn an_elastic_hammock_under_a_heavy_body_sags_as_a_membrane() {
    let (m, k, a, r) = (200.0 as Real, 20_000.0 as Real, 0.2 as Real, 0.75 as Real);
    let theta = (m * 9.81 / (std::f64::consts::PI as Real * a * k)).cbrt();
    let estimate = theta * (r - a);
    let mut world = hammock(
        &format!("stretch = {{ model = \"elastic\", stiffness = {k} }}"),
        &body_table(&box_keys("rigid", m)),
    );
    for _ in 0..150 {
        world.step().unwrap();
    }
    let sag = 1.0 - lowest(&positions(&world, "hammock"));
    assert!(
        estimate <= sag && sag <= 2.0 * estimate,
        "sag {sag} m, membrane estimate {estimate} m"
    );
}

#[test]
fn a_cloth_dropped_on_a_coarse_soft_body_stays_on_top() {
    // The body's lattice particles are 8 cm apart and 1 cm thick, the cloth's 3 cm apart: on
    // main the cloth fell between them onto the ground.
    let scene = r#"
[solver]
substeps = 10
iterations = 4

[[cloth]]
name = "sheet"
resolution = [30, 30]
size = [0.9, 0.9]
center = [0.0, 0.8, 0.0]
mass = 0.1

[[soft_body]]
name = "block"
mesh = "../meshes/rounded-box.obj"
model = "tets"
resolution = 6
fit = 0.5
mass = 2.0
center = [0.0, 0.3, 0.0]

[[collider]]
shape = "plane"
friction = 1.0
"#;
    let at = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/surface_contact.toml");
    let mut world = parse_scene(scene, &at).unwrap();
    let sheet = positions(&world, "sheet");
    let xz = |p: &Vec3| p.x * p.x + p.z * p.z;
    let middle = (0..sheet.len())
        .min_by(|&a, &b| xz(&sheet[a]).total_cmp(&xz(&sheet[b])))
        .unwrap();
    for _ in 0..120 {
        world.step().unwrap();
    }
    let block = world.body(world.body_named("block").unwrap());
    let top = block
        .surface(&world.particles().x)
        .iter()
        .map(|p| p.y)
        .fold(Real::MIN, Real::max);
    // The middle of the sheet lies on the block's top, not below it.
    let middle = positions(&world, "sheet")[middle];
    assert!(
        middle.y > top,
        "the sheet's middle is at {middle}, the block's top at {top} m"
    );
}

#[test]
fn a_rigid_bunny_falls_at_g_above_the_hammock() {
    // A rigid body's centre of mass taken as a plain sum of 399 terms mᵢ pᵢ does not change
    // under a fall of g h² per substep: at 20 substeps the 2 kg and 4 kg bunnies (any mass, at
    // some heights, the 40 kg one) would hang in the air, others fall slower or faster than g.
    for mass in [2.0, 4.0, 40.0] {
        let body = format!(
            r#"
mesh = "../../shared/meshes/stanford-bunny.obj"
model = "rigid"
resolution = 8
fit = 0.5
mass = {mass}
thickness = 0.02
center = [0.0, 1.5, 0.0]
"#
        );
        let mut world = hammock_with(&body);
        let frames = 3;
        for _ in 0..frames {
            world.step().unwrap();
        }
        let id = world.body_named("body").unwrap();
        let v = world.velocities(id);
        let fall = v.iter().map(|v| v.y).sum::<Real>() / v.len() as Real;
        // Free fall for 3 frames of 1/60 s, before the bunny (25 cm above the hammock) touches.
        let expected = -9.81 * frames as Real / 60.0;
        assert!(
            (fall - expected).abs() < 0.01 * expected.abs(),
            "a {mass} kg bunny falls at {fall} m/s after {frames} frames, free fall {expected} m/s"
        );
    }
}
