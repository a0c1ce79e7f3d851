//! Tearing (`tear = { strain }`): a cloth pulled from two sides tears between them and the two
//! parts separate; every constraint stays within one piece of the torn mesh, the families stay
//! validly colored, the result is the same on 1 and 2 threads, and export writes the new mesh.

use crate::common::on_threads;
use supple::bodies::tear::Tear;
use supple::export::body_obj;
use supple::solver::schedule;
use supple::{BendKind, ClothDesc, Orientation, SolverParams, Stiffness, Vec3, World};

/// Grid columns and rows of the pulled cloth.
const NX: u32 = 21;
const NZ: u32 = 9;

/// A horizontal 1 m × 0.4 m cloth without gravity, its left and right columns pinned, soft
/// stretch, dihedral bending, tethers, tearing past 10% strain.
fn pulled_cloth() -> World {
    pulled_cloth_of(BendKind::Dihedral)
}

/// [`pulled_cloth`] with bending of `kind`.
fn pulled_cloth_of(kind: BendKind) -> World {
    let params = SolverParams {
        gravity: Vec3::zeros(),
        ..SolverParams::default()
    };
    let mut world = World::new(params).unwrap();
    let grid = ClothDesc::grid(
        [NX, NZ],
        [1.0, 0.4],
        Vec3::new(0.0, 1.0, 0.0),
        Orientation::Horizontal,
        0.2,
    )
    .unwrap();
    let soft = Stiffness::Xpbd {
        compliance: 1e-3,
        damping: 0.0,
    };
    let desc = ClothDesc {
        pin: left_and_right(),
        stretch: soft,
        shear: soft,
        bend: Some((Stiffness::default(), kind)),
        long_range: true,
        tear: Some(Tear { strain: 0.1 }),
        ..grid
    };
    world.add_cloth(&desc).unwrap();
    world
}

/// The pinned particles: the left column, then the right one.
fn left_and_right() -> Vec<usize> {
    let column = |i| (0..NZ).map(move |j| ClothDesc::grid_index(NX, i, j));
    column(0).chain(column(NX - 1)).collect()
}

/// Moves the left pins by −`dx` and the right pins by +`dx` along x, then steps one frame.
fn pull(world: &mut World, dx: f32) {
    let body = world.body_named("cloth0").unwrap();
    let mut x = world.positions(body).to_vec();
    for (n, k) in left_and_right().into_iter().enumerate() {
        let side = if n < NZ as usize { -1.0 } else { 1.0 };
        x[k].x += side * dx;
    }
    world.set_positions(body, &x).unwrap();
    world.step().unwrap();
}

/// The piece (a connected set of triangles) of each particle of the only body, by its lowest
/// particle: particles sharing a triangle share a piece.
fn pieces(world: &World) -> Vec<usize> {
    let body = &world.bodies()[0];
    let mut piece: Vec<usize> = (0..body.particles.len()).collect();
    fn root(piece: &mut [usize], mut k: usize) -> usize {
        while piece[k] != k {
            piece[k] = piece[piece[k]];
            k = piece[k];
        }
        k
    }
    for t in &body.triangles {
        for e in [[t[0], t[1]], [t[1], t[2]]] {
            let (a, b) = (
                root(&mut piece, e[0] as usize),
                root(&mut piece, e[1] as usize),
            );
            piece[a.max(b)] = a.min(b);
        }
    }
    (0..piece.len()).map(|k| root(&mut piece, k)).collect()
}

/// Asserts that the particles of every constraint lie in one piece, and that the scheduled
/// families are validly colored.
fn assert_constraints_within_pieces(world: &World) {
    let piece = pieces(world);
    let n = world.particles().len();
    let cs = world.constraints();
    let within = |ids: &[u32], what: &str| {
        assert!(
            ids.iter().all(|&i| (i as usize) < n),
            "{what} {ids:?} past {n}"
        );
        assert!(
            ids.iter()
                .all(|&i| piece[i as usize] == piece[ids[0] as usize]),
            "{what} {ids:?} spans pieces"
        );
    };
    cs.stretch.ids().iter().for_each(|c| within(c, "stretch"));
    cs.dihedral.ids().iter().for_each(|c| within(c, "hinge"));
    cs.isometric.ids().iter().for_each(|c| within(c, "hinge"));
    for (&i, &a) in cs.tether.ids.iter().zip(&cs.tether.anchor) {
        within(&[i, a], "tether");
    }
    assert!(!cs.tether.is_empty() && cs.dihedral.is_empty() != cs.isometric.is_empty());
    assert_eq!(
        schedule::validate(cs.stretch.ids(), cs.stretch.blocks()),
        Ok(())
    );
    assert_eq!(
        schedule::validate(cs.dihedral.ids(), cs.dihedral.blocks()),
        Ok(())
    );
    assert_eq!(
        schedule::validate(cs.isometric.ids(), cs.isometric.blocks()),
        Ok(())
    );
}

#[test]
fn a_cloth_pulled_from_two_sides_tears_between_them_and_the_parts_separate() {
    for kind in [BendKind::Dihedral, BendKind::Isometric] {
        pulled_apart(kind);
    }
}

/// The checks of the test above for a cloth with bending of `kind`.
fn pulled_apart(kind: BendKind) {
    let mut world = pulled_cloth_of(kind);
    let n0 = (NX * NZ) as usize;
    for _ in 0..90 {
        pull(&mut world, 0.004);
        assert_constraints_within_pieces(&world);
    }
    assert!(world.torn_edges() > 0);
    let body = &world.bodies()[0];
    assert!(
        body.particles.len() as u64 >= n0 as u64 + world.torn_edges(),
        "at least one new particle per torn edge"
    );
    let piece = pieces(&world);
    let pins = left_and_right();
    let (left, right) = pins.split_at(NZ as usize);
    let side = |ks: &[usize]| piece[ks[0]];
    assert!(left.iter().all(|&k| piece[k] == side(left)));
    assert!(right.iter().all(|&k| piece[k] == side(right)));
    assert_ne!(side(left), side(right), "the pins' sides are apart");
    // Released, the two sides spring back towards their pins: the gap between the pieces is
    // wide, far more than one cell (0.05 m), after the pins moved apart by 0.72 m.
    let x = &world.particles().x;
    let gap = (0..piece.len())
        .filter(|&k| piece[k] == side(left))
        .flat_map(|a| {
            (0..piece.len())
                .filter(|&k| piece[k] == side(right))
                .map(move |b| (x[a] - x[b]).norm())
        })
        .fold(f32::INFINITY, f32::min);
    assert!(gap > 0.2, "the pieces are {gap} m apart");
    // Mass is shared, not made: the body still weighs 0.2 kg.
    let ps = world.particles();
    let mass: f32 = body
        .particles
        .clone()
        .filter(|&i| ps.inv_mass[i] > 0.0)
        .map(|i| ps.mass(i))
        .sum();
    let free = (n0 - pins.len()) as f32 * 0.2 / n0 as f32;
    assert!(
        (mass / free - 1.0).abs() < 1e-4,
        "free mass {mass} kg, was {free} kg"
    );
}

#[test]
fn tearing_gives_the_same_bits_on_1_and_2_threads() {
    let run = |threads| {
        on_threads(threads, || {
            let mut world = pulled_cloth();
            for _ in 0..70 {
                pull(&mut world, 0.004);
            }
            let x: Vec<[f32; 3]> = world.particles().x.iter().map(|p| (*p).into()).collect();
            (x, world.bodies()[0].triangles.clone(), world.torn_edges())
        })
    };
    let one = run(1);
    assert!(one.2 > 0, "it tore");
    assert!(run(2) == one, "2 threads differ from 1");
}

#[test]
fn export_writes_the_torn_mesh_over_the_new_vertices() {
    let mut world = pulled_cloth();
    for _ in 0..90 {
        pull(&mut world, 0.004);
    }
    let body = &world.bodies()[0];
    let obj = body_obj(body, &world.particles().x);
    let vertices = obj.lines().filter(|l| l.starts_with("v ")).count();
    assert_eq!(vertices, body.particles.len());
    let n0 = (NX * NZ) as usize;
    let past: usize = obj
        .lines()
        .filter(|l| l.starts_with("f "))
        .filter(|l| {
            l[2..]
                .split(' ')
                .any(|v| v.split("//").next().unwrap().parse::<usize>().unwrap() > n0)
        })
        .count();
    assert!(past > 0, "faces use the new vertices");
}

#[test]
fn a_tearing_cloth_must_be_the_last_body() {
    let mut world = pulled_cloth();
    let rope = supple::RopeDesc::new(Vec3::zeros(), Vec3::x(), 4, 0.1);
    let e = world.add_rope(&rope).unwrap_err();
    assert!(e.to_string().contains("tear"), "{e}");
    let bad = ClothDesc {
        tear: Some(Tear { strain: 0.0 }),
        ..ClothDesc::workload_w(4, Stiffness::default())
    };
    let e = World::new(SolverParams::default())
        .unwrap()
        .add_cloth(&bad)
        .unwrap_err();
    assert!(e.to_string().contains("tear.strain"), "{e}");
}
