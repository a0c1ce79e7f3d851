//! A cloth from a garment tool's mesh: panels with their own vertices along the seams, sliver
//! triangles beside the seams, irregular triangles, millimetre units. Loaded with `scale =
//! 0.001`, it is welded into one cloth and drapes over a sphere with self-collision; without
//! welding its panels come apart.

use std::fmt::Write as _;
use std::path::Path;
use supple::{Real, Vec3, World, export_frame, load_scene};

/// Panel side, mm; the garment is 2 x 2 panels.
const PANEL: Real = 300.0;
/// Cells along a panel's side.
const CELLS: usize = 24;
/// Distance of the sliver row from a seam, mm (as measured in a garment tool's export).
const SLIVER: Real = 0.04;

/// The garment: its vertices (mm) and triangles, and the groups of vertices that one point of
/// a seam is made of (coincident across panels, or a sliver row's vertex and its seam vertex).
struct Garment {
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    seams: Vec<Vec<u32>>,
}

/// A deterministic stream of numbers in [0, 1).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> Real {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as Real / (1u64 << 24) as Real
    }
}

/// Four panels of a 600 mm square lying at height 200 mm, centred on the y axis. Each panel is
/// a grid of `CELLS` cells a side, its inner vertices moved by up to a fifth of a cell and its
/// cells split either way at random; along its two seam sides a row of vertices 0.04 mm from
/// the seam makes a strip of sliver triangles.
fn garment() -> Garment {
    let mut rng = Lcg(7);
    let (mut positions, mut triangles) = (Vec::new(), Vec::new());
    let mut at_seam: Vec<(Vec3, u32)> = Vec::new();
    for (pi, pj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
        // The coordinates along each side, with the sliver row on the seam's side.
        let coords = |seam_at_end: bool| {
            let mut c: Vec<Real> = (0..=CELLS)
                .map(|k| k as Real * PANEL / CELLS as Real)
                .collect();
            match seam_at_end {
                true => c.insert(CELLS, PANEL - SLIVER),
                false => c.insert(1, SLIVER),
            }
            c
        };
        let (us, vs) = (coords(pi == 0), coords(pj == 0));
        let base = positions.len() as u32;
        let cell = PANEL / CELLS as Real;
        for (b, &v) in vs.iter().enumerate() {
            for (a, &u) in us.iter().enumerate() {
                let inner = |k: usize, n: usize, c: Real| {
                    k > 1 && k + 2 < n && c > SLIVER && PANEL - c > SLIVER
                };
                let jitter = |rng: &mut Lcg| (rng.next() - 0.5) * 0.4 * cell;
                let (mut x, mut z) = (u + pi as Real * PANEL, v + pj as Real * PANEL);
                if inner(a, us.len(), u) && inner(b, vs.len(), v) {
                    x += jitter(&mut rng);
                    z += jitter(&mut rng);
                }
                let p = Vec3::new(x - PANEL, 200.0, z - PANEL);
                let i = positions.len() as u32;
                positions.push(p);
                let on_seam = |c: Real, seam_at_end: bool| match seam_at_end {
                    true => c >= PANEL - SLIVER,
                    false => c <= SLIVER,
                };
                if on_seam(u, pi == 0) || on_seam(v, pj == 0) {
                    at_seam.push((p, i));
                }
            }
        }
        let row = us.len() as u32;
        for b in 0..vs.len() as u32 - 1 {
            for a in 0..row - 1 {
                let [p00, p10, p01, p11] = [(a, b), (a + 1, b), (a, b + 1), (a + 1, b + 1)]
                    .map(|(a, b)| base + b * row + a);
                if rng.next() < 0.5 {
                    triangles.extend([[p00, p01, p10], [p10, p01, p11]]);
                } else {
                    triangles.extend([[p00, p01, p11], [p00, p11, p10]]);
                }
            }
        }
    }
    // A seam point: the vertices joined by steps of at most a sliver's width.
    let mut seams: Vec<Vec<u32>> = Vec::new();
    let mut taken = vec![false; at_seam.len()];
    for k in 0..at_seam.len() {
        if taken[k] {
            continue;
        }
        let mut group = vec![k];
        taken[k] = true;
        let mut next = 0;
        while next < group.len() {
            let p = at_seam[group[next]].0;
            for (m, &(q, _)) in at_seam.iter().enumerate() {
                if !taken[m] && (p - q).norm() <= 1.5 * SLIVER {
                    taken[m] = true;
                    group.push(m);
                }
            }
            next += 1;
        }
        if group.len() > 1 {
            seams.push(group.iter().map(|&m| at_seam[m].1).collect());
        }
    }
    Garment {
        positions,
        triangles,
        seams,
    }
}

fn obj(g: &Garment) -> String {
    let mut s = String::new();
    for p in &g.positions {
        writeln!(s, "v {} {} {}", p.x, p.y, p.z).unwrap();
    }
    for t in &g.triangles {
        writeln!(s, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1).unwrap();
    }
    s
}

/// The garment loaded as a cloth with `extra` keys, over a sphere of radius 0.15 m at the
/// origin, 10 substeps of 5 iterations.
fn scene(dir: &Path, g: &Garment, extra: &str) -> World {
    std::fs::write(dir.join("shirt.obj"), obj(g)).unwrap();
    let toml = format!(
        r#"
[solver]
substeps = 10
iterations = 5

[[cloth]]
name = "shirt"
mesh = "shirt.obj"
scale = 0.001
mass = 0.2
thickness = 0.004
self_collision = true
damping = 0.05
bend = {{ model = "xpbd", compliance = 0.1 }}
{extra}

[[collider]]
shape = "sphere"
center = [0.0, 0.0, 0.0]
radius = 0.15
friction = 0.5
"#
    );
    let path = dir.join("garment.toml");
    std::fs::write(&path, toml).unwrap();
    load_scene(&path).unwrap().world
}

/// The largest distance between two vertices of one seam point, m.
fn widest_seam(x: &[Vec3], g: &Garment) -> Real {
    let spread = |s: &Vec<u32>| {
        let first = x[s[0] as usize];
        s.iter()
            .map(|&i| (x[i as usize] - first).norm())
            .fold(0.0, Real::max)
    };
    g.seams.iter().map(spread).fold(0.0, Real::max)
}

#[test]
fn a_garment_is_sewn_at_its_seams_and_drapes_over_a_sphere() {
    let g = garment();
    let (vertices, seams) = (g.positions.len(), g.seams.len());
    assert!(seams > 4 * CELLS, "{seams} seam points");
    let dir = tempfile::tempdir().unwrap();
    let mut world = scene(dir.path(), &g, "");
    let h = world.body_named("shirt").unwrap();
    let body = &world.bodies()[h.index()];
    // Each seam point is one particle: its coincident vertices welded, its sliver row collapsed.
    assert!(body.welded_vertices() > 0 && body.collapsed_triangles() > 0);
    let merged: usize = g.seams.iter().map(|s| s.len() - 1).sum();
    assert_eq!(body.particles.len(), vertices - merged);
    // The edges of the file of at least 2 mm, and their rest lengths, m.
    let rest: Vec<Vec3> = g.positions.iter().map(|p| p * 0.001).collect();
    let edges: Vec<([usize; 2], Real)> = supple::mesh::topology::edges(&g.triangles)
        .into_iter()
        .map(|[a, b]| [a as usize, b as usize])
        .map(|[a, b]| ([a, b], (rest[a] - rest[b]).norm()))
        .filter(|&(_, d)| d >= 0.002)
        .collect();
    for frame in 1..=120 {
        world.step().unwrap();
        if frame % 10 != 0 {
            continue;
        }
        let x = world.positions(h);
        assert_eq!(x.len(), vertices);
        assert!(
            widest_seam(&x, &g) <= 0.002,
            "a seam opened at frame {frame}"
        );
        let strain: Vec<Real> = edges
            .iter()
            .map(|&([a, b], d)| ((x[a] - x[b]).norm() - d) / d)
            .collect();
        let max = strain.iter().copied().fold(0.0, Real::max);
        let mean = strain.iter().map(|s| s.abs()).sum::<Real>() / strain.len() as Real;
        assert!(
            max <= 0.3 && mean <= 0.05,
            "frame {frame}: edges of 2 mm or more stretched by {max} at most, {mean} on average"
        );
    }
    // It drapes: its middle lies on the sphere's top, its sides hang below the equator.
    let x = world.positions(h);
    let middle = x
        .iter()
        .min_by(|p, q| (p.x.powi(2) + p.z.powi(2)).total_cmp(&(q.x.powi(2) + q.z.powi(2))))
        .unwrap();
    assert!(
        (middle.y - 0.154).abs() < 0.001,
        "the middle rests on the sphere at its radius and the cloth's thickness: {middle:?}"
    );
    let lowest = x.iter().map(|p| p.y).fold(Real::MAX, Real::min);
    assert!(
        lowest < 0.0,
        "the sides hang below the equator: lowest at {lowest} m"
    );
    // The export has the file's vertices.
    export_frame(&world, dir.path()).unwrap();
    let exported = std::fs::read_to_string(dir.path().join("shirt_00120.obj")).unwrap();
    let v_lines = exported.lines().filter(|l| l.starts_with("v ")).count();
    assert_eq!(v_lines, vertices);
}

#[test]
fn unwelded_panels_come_apart() {
    let g = garment();
    let dir = tempfile::tempdir().unwrap();
    let mut world = scene(dir.path(), &g, "weld = 0.0");
    let h = world.body_named("shirt").unwrap();
    assert_eq!(world.bodies()[h.index()].welded_vertices(), 0);
    world.step_frames(60).unwrap();
    let x = world.positions(h);
    assert!(
        widest_seam(&x, &g) > 0.02,
        "the panels slid apart by {} m",
        widest_seam(&x, &g)
    );
}
