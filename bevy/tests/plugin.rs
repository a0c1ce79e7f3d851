//! The plugin in a headless app (Bevy's minimal plugins): cloth meshes move with their normals,
//! colliders and pins follow transforms, errors arrive as messages, despawning removes bodies,
//! and scene files spawn as entities.

use bevy::asset::AssetPlugin;
use bevy::mesh::{Mesh, MeshPlugin, VertexAttributeValues};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_supple::prelude::*;
use bevy_supple::{SuppleFailed, SuppleSceneSpawned};
use std::time::Duration;

/// A headless app with the plugin, whose clock advances one simulated frame per update.
fn app() -> App {
    app_with_assets("assets")
}

/// [`app`], its assets under `file_path`.
fn app_with_assets(file_path: &str) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: file_path.into(),
            ..default()
        },
        TransformPlugin,
        MeshPlugin,
        SupplePlugin,
    ));
    let dt = Duration::from_secs_f64(f64::from(SolverParams::default().dt));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(dt));
    app.init_resource::<Errors>()
        .add_systems(Last, collect_errors);
    app
}

/// Every [`SuppleError`] so far.
#[derive(Resource, Default)]
struct Errors(Vec<SuppleError>);

fn collect_errors(mut read: MessageReader<SuppleError>, mut errors: ResMut<Errors>) {
    errors.0.extend(read.read().cloned());
}

/// A horizontal square of cloth `size` m across with `cells` quads a side (Bevy's plane:
/// vertex `z · (cells + 1) + x`), its vertices at z = −size/2 painted red.
fn sheet(size: f32, cells: u32) -> Mesh {
    let mut mesh = Plane3d::default()
        .mesh()
        .size(size, size)
        .subdivisions(cells - 1)
        .build();
    let Some(VertexAttributeValues::Float32x3(p)) = mesh.attribute(Mesh::ATTRIBUTE_POSITION) else {
        panic!("a plane has positions");
    };
    let colors: Vec<[f32; 4]> = p
        .iter()
        .map(|p| {
            if p[2] < -0.49 * size {
                [1.0, 0.0, 0.0, 1.0]
            } else {
                [1.0, 1.0, 1.0, 1.0]
            }
        })
        .collect();
    mesh.insert_attribute(Mesh::ATTRIBUTE_COLOR, colors);
    mesh
}

fn positions(mesh: &Mesh) -> Vec<Vec3> {
    match mesh.attribute(Mesh::ATTRIBUTE_POSITION) {
        Some(VertexAttributeValues::Float32x3(p)) => p.iter().map(|&p| Vec3::from(p)).collect(),
        _ => panic!("no positions"),
    }
}

fn normals(mesh: &Mesh) -> Vec<Vec3> {
    match mesh.attribute(Mesh::ATTRIBUTE_NORMAL) {
        Some(VertexAttributeValues::Float32x3(n)) => n.iter().map(|&n| Vec3::from(n)).collect(),
        _ => panic!("no normals"),
    }
}

/// The mesh shown by `entity`.
fn mesh_of(app: &App, entity: Entity) -> (AssetId<Mesh>, Mesh) {
    let id = app.world().get::<Mesh3d>(entity).unwrap().id();
    (
        id,
        app.world()
            .resource::<Assets<Mesh>>()
            .get(id)
            .unwrap()
            .clone(),
    )
}

fn frame(app: &App) -> u64 {
    app.world().resource::<SuppleWorld>().world().frame()
}

#[test]
fn a_cloth_mesh_swings_down_from_its_painted_edge_and_its_normals_follow() {
    let mut app = app();
    let mesh = app
        .world_mut()
        .resource_mut::<Assets<Mesh>>()
        .add(sheet(1.0, 16));
    let cloth = app
        .world_mut()
        .spawn((
            Mesh3d(mesh),
            Transform::from_xyz(0.0, 2.0, 0.0),
            SuppleCloth::from_mesh(0.2).pinned_where(PinWhere::Color(Color::srgb(1.0, 0.0, 0.0))),
        ))
        .id();
    app.update();
    let (first, start) = mesh_of(&app, cloth);
    app.update();
    let meshes = app.world().resource::<Assets<Mesh>>().len();
    // The free edge (z = +0.5) swings down through the vertical, where it is 1 m (the cloth's
    // length, with a few percent of stretch) below the pinned edge.
    let mut deepest = f32::MAX;
    for _ in 0..89 {
        app.update();
        let x = positions(&mesh_of(&app, cloth).1);
        let free = x.iter().zip(positions(&start)).filter(|(_, a)| a.z > 0.49);
        deepest = free.map(|(b, _)| b.y).fold(deepest, f32::min);
    }
    assert!(
        (-1.05..-0.95).contains(&deepest),
        "the free edge swung down to {deepest} m"
    );
    assert!(frame(&app) >= 85, "frames simulated: {}", frame(&app));
    let (id, now) = mesh_of(&app, cloth);
    assert_eq!(id, first, "the same mesh, updated in place");
    assert_eq!(app.world().resource::<Assets<Mesh>>().len(), meshes);
    let (x0, x) = (positions(&start), positions(&now));
    // The painted edge (z = −0.5, in the entity's frame) held.
    for (a, b) in x0.iter().zip(&x).filter(|(a, _)| a.z < -0.49) {
        assert!(
            (a - b).length() < 1e-5,
            "pinned vertex moved from {a} to {b}"
        );
    }
    // The normals are the surface's: each is perpendicular to the cloth's edges around it.
    let n = normals(&now);
    let (nx, n0) = (n[17 * 8 + 8], normals(&start)[17 * 8 + 8]);
    assert!(n0.y.abs() > 0.99, "flat at first: {n0}");
    assert!(nx.y.abs() < 0.5, "the middle turned towards vertical: {nx}");
    let along = (x[17 * 8 + 9] - x[17 * 8 + 7]).normalize();
    assert!(
        nx.dot(along).abs() < 0.1,
        "normal {nx} against the cloth's direction {along}"
    );
    assert!(app.world().resource::<Errors>().0.is_empty());
}

#[test]
fn a_collider_moved_by_its_transform_pushes_the_cloth_up() {
    let mut app = app();
    let mesh = app
        .world_mut()
        .resource_mut::<Assets<Mesh>>()
        .add(sheet(1.0, 16));
    let corners = [0, 16, 17 * 16, 17 * 17 - 1];
    let cloth = app
        .world_mut()
        .spawn((
            Mesh3d(mesh),
            Transform::from_xyz(0.0, 1.0, 0.0),
            SuppleCloth::from_mesh(0.2).pinned(corners),
        ))
        .id();
    let ball = app
        .world_mut()
        .spawn((
            Transform::from_xyz(0.0, 0.4, 0.0),
            SuppleCollider::new(ColliderShape::Sphere { radius: 0.2 }),
        ))
        .id();
    app.update();
    for k in 0..60 {
        app.update();
        let y = 0.4 + 0.7 * (k + 1) as f32 / 60.0;
        app.world_mut()
            .get_mut::<Transform>(ball)
            .unwrap()
            .translation
            .y = y;
    }
    for _ in 0..10 {
        app.update();
    }
    let sim = app.world().resource::<SuppleWorld>();
    let c = sim.world().collider(sim.collider(ball).unwrap());
    let center = c.shape.center();
    assert!(
        (center.y - 1.1).abs() < 1e-4,
        "the ball followed its entity to {center}"
    );
    let x = sim.world().positions(sim.body(cloth).unwrap());
    let top = x.iter().map(|p| p.y).fold(f32::MIN, f32::max);
    assert!(top > 1.25, "the cloth was pushed up to {top} m");
    let inside = x
        .iter()
        .map(|p| 0.2 - (p - center).norm())
        .fold(f32::MIN, f32::max);
    assert!(inside < 0.01, "a vertex is {inside} m inside the ball");
}

#[test]
fn a_pin_carries_vertices_with_its_entity() {
    let mut app = app();
    let mesh = app
        .world_mut()
        .resource_mut::<Assets<Mesh>>()
        .add(sheet(0.6, 12));
    let pole = app
        .world_mut()
        .spawn(Transform::from_xyz(0.0, 1.0, -0.3))
        .id();
    let edge: Vec<usize> = (0..12).collect();
    let cloth = app
        .world_mut()
        .spawn((
            Mesh3d(mesh),
            Transform::from_xyz(0.0, 1.0, 0.0),
            SuppleCloth::from_mesh(0.1),
            SupplePin::new(pole, edge.clone()),
        ))
        .id();
    app.update();
    app.update();
    let start = {
        let sim = app.world().resource::<SuppleWorld>();
        sim.world().positions(sim.body(cloth).unwrap())
    };
    for k in 0..60 {
        app.update();
        let x = 0.8 * (k + 1) as f32 / 60.0;
        let mut pole = app.world_mut().get_mut::<Transform>(pole).unwrap();
        pole.translation.x = x;
        pole.rotation = Quat::from_rotation_y(x);
    }
    for _ in 0..3 {
        app.update();
    }
    let sim = app.world().resource::<SuppleWorld>();
    let x = sim.world().positions(sim.body(cloth).unwrap());
    let (turn, shift) = (Quat::from_rotation_y(0.8), Vec3::new(0.8, 0.0, 0.0));
    let pole0 = Vec3::new(0.0, 1.0, -0.3);
    for &v in &edge {
        let want = pole0 + shift + turn * (Vec3::new(start[v].x, start[v].y, start[v].z) - pole0);
        let got = Vec3::new(x[v].x, x[v].y, x[v].z);
        assert!(
            (got - want).length() < 1e-3,
            "vertex {v} at {got}, carried to {want}"
        );
    }
    // The pole carries them without touching the cloth.
    let carrier = sim.world().collider(sim.collider(pole).unwrap());
    assert!(!carrier.solid);
    // Removing the pin frees them.
    app.world_mut().entity_mut(cloth).remove::<SupplePin>();
    for _ in 0..20 {
        app.update();
    }
    let sim = app.world().resource::<SuppleWorld>();
    let y = sim.world().positions(sim.body(cloth).unwrap())[0].y;
    assert!(y < 0.95, "the freed edge fell to {y}");
}

#[test]
fn a_bad_description_is_an_error_message_and_the_app_keeps_stepping() {
    let mut app = app();
    let mesh = app
        .world_mut()
        .resource_mut::<Assets<Mesh>>()
        .add(sheet(1.0, 8));
    let mut bad = SuppleCloth::from_mesh(0.2);
    bad.desc.thickness = -1.0;
    let bad = app.world_mut().spawn((Mesh3d(mesh.clone()), bad)).id();
    let unpinnable = app
        .world_mut()
        .spawn((
            Mesh3d(mesh.clone()),
            SuppleCloth::from_mesh(0.2).pinned([500]),
        ))
        .id();
    let no_mesh = app.world_mut().spawn(SuppleCloth::from_mesh(0.2)).id();
    let good = app
        .world_mut()
        .spawn((Mesh3d(mesh), SuppleCloth::from_mesh(0.2)))
        .id();
    for _ in 0..10 {
        app.update();
    }
    let errors = &app.world().resource::<Errors>().0;
    assert_eq!(errors.len(), 3, "{errors:#?}");
    let of = |e: Entity| errors.iter().find(|x| x.entity == Some(e)).unwrap();
    assert_eq!(of(bad).key.as_deref(), Some("thickness"));
    assert_eq!(of(unpinnable).key.as_deref(), Some("pin[0]"));
    assert!(of(unpinnable).message.contains("500"), "{}", of(unpinnable));
    assert_eq!(of(no_mesh).key.as_deref(), Some("mesh"));
    for e in [bad, unpinnable, no_mesh] {
        assert!(app.world().get::<SuppleFailed>(e).is_some());
    }
    assert!(frame(&app) >= 8, "the world went on: frame {}", frame(&app));
    let sim = app.world().resource::<SuppleWorld>();
    assert_eq!(sim.world().bodies().len(), 1);
    assert!(sim.body(good).is_some());
}

#[test]
fn despawning_an_entity_removes_its_body_and_the_others_go_on() {
    let mut app = app();
    let mesh = app
        .world_mut()
        .resource_mut::<Assets<Mesh>>()
        .add(sheet(0.5, 8));
    let a = app
        .world_mut()
        .spawn((
            Mesh3d(mesh.clone()),
            Transform::from_xyz(-1.0, 1.0, 0.0),
            SuppleCloth::from_mesh(0.1),
        ))
        .id();
    let b = app
        .world_mut()
        .spawn((
            Mesh3d(mesh),
            Transform::from_xyz(1.0, 1.0, 0.0),
            SuppleCloth::from_mesh(0.1),
        ))
        .id();
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(
        app.world().resource::<SuppleWorld>().world().bodies().len(),
        2
    );
    app.world_mut().despawn(a);
    app.update();
    let y0 = positions(&mesh_of(&app, b).1)[0].y;
    for _ in 0..5 {
        app.update();
    }
    let sim = app.world().resource::<SuppleWorld>();
    assert_eq!(sim.world().bodies().len(), 1);
    assert_eq!(sim.body(a), None);
    assert_eq!(sim.body(b).map(|h| h.index()), Some(0));
    let y = positions(&mesh_of(&app, b).1)[0].y;
    assert!(y < y0 - 0.01, "b falls on: {y0} then {y}");
}

#[test]
fn a_scene_file_spawns_its_bodies_and_colliders() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut app = app_with_assets(root);
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load("scenes/cape.toml");
    let scene = app.world_mut().spawn(SuppleSceneRoot(handle)).id();
    for _ in 0..200 {
        app.update();
        if app.world().get::<SuppleSceneSpawned>(scene).is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        app.world().get::<SuppleSceneSpawned>(scene).is_some(),
        "the scene loaded"
    );
    app.update();
    let cape = {
        let sim = app.world().resource::<SuppleWorld>();
        assert_eq!(sim.world().bodies().len(), 1);
        let mut bodies = app.world_mut().query::<(Entity, &SuppleBody)>();
        let (entity, body) = bodies.single(app.world()).unwrap();
        assert_eq!(body.name, "cape");
        entity
    };
    let before = positions(&mesh_of(&app, cape).1);
    for _ in 0..30 {
        app.update();
    }
    let after = positions(&mesh_of(&app, cape).1);
    let moved = before
        .iter()
        .zip(&after)
        .map(|(a, b)| (a - b).length())
        .fold(0.0, f32::max);
    assert!(moved > 0.05, "the cape moves in its mesh: {moved} m");
    let mut colliders = app.world_mut().query::<&bevy_supple::SuppleSceneCollider>();
    assert_eq!(
        colliders.iter(app.world()).count(),
        app.world()
            .resource::<SuppleWorld>()
            .world()
            .colliders()
            .len()
    );
    assert!(app.world().resource::<Errors>().0.is_empty());
    // Despawning the scene's body entity removes the body.
    app.world_mut().despawn(cape);
    app.update();
    assert!(
        app.world()
            .resource::<SuppleWorld>()
            .world()
            .bodies()
            .is_empty()
    );
}

#[test]
fn every_shipped_scene_spawns_with_its_meshes() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut names: Vec<String> = std::fs::read_dir(format!("{root}/scenes"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    for name in names {
        let mut app = app_with_assets(root);
        let handle = app
            .world()
            .resource::<AssetServer>()
            .load(format!("scenes/{name}"));
        let scene = app.world_mut().spawn(SuppleSceneRoot(handle)).id();
        for _ in 0..400 {
            app.update();
            if app.world().get::<SuppleSceneSpawned>(scene).is_some()
                || !app.world().resource::<Errors>().0.is_empty()
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        app.update();
        let errors = &app.world().resource::<Errors>().0;
        assert!(errors.is_empty(), "{name}: {errors:?}");
        let bodies = app.world().resource::<SuppleWorld>().world().bodies().len();
        let mut spawned = app.world_mut().query::<&SuppleBody>();
        assert_eq!(spawned.iter(app.world()).count(), bodies, "{name}");
        assert!(bodies > 0, "{name}");
    }
}

#[test]
fn a_bad_scene_file_is_an_error_message_naming_its_line() {
    let dir = tempfile_dir();
    std::fs::write(dir.join("bad.toml"), "[solver]\nsubsteps = 0\n").unwrap();
    let mut app = app_with_assets(dir.to_str().unwrap());
    let handle = app.world().resource::<AssetServer>().load("bad.toml");
    let scene = app.world_mut().spawn(SuppleSceneRoot(handle)).id();
    for _ in 0..200 {
        app.update();
        if !app.world().resource::<Errors>().0.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let errors = &app.world().resource::<Errors>().0;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].entity, Some(scene));
    assert!(
        errors[0].message.contains("bad.toml:2") && errors[0].message.contains("substeps"),
        "{}",
        errors[0]
    );
}

/// A fresh folder under the target directory.
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad-scene");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
