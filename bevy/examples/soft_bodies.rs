//! The meshes of Supple's `meshes/` folder dropped as soft bodies onto a ground; press the
//! left mouse button on one to pick it up and drag it about.
//!
//! `cargo run --release -p bevy_supple --example soft_bodies`

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_supple::prelude::*;
use std::path::Path;

/// The point that holds the picked vertex, and how far along the view it is.
#[derive(Component)]
struct Grab {
    depth: f32,
    body: Entity,
}

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, SupplePlugin))
        .add_systems(Startup, setup)
        .add_systems(Update, (drag, color_bodies, report_errors))
        .run();
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../meshes");
    let models = [
        ("lumpy.obj", SoftModel::Tets),
        ("torus.obj", SoftModel::Clusters),
        ("rounded-box.obj", SoftModel::Tets),
        ("capsule.obj", SoftModel::Surface),
    ];
    for (k, (file, model)) in models.into_iter().enumerate() {
        let mut mesh = match supple::load_obj(&folder.join(file)) {
            Ok(mesh) => mesh,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        let scale = supple::fit_scale(&mesh, 0.5);
        let x = -1.2 + 0.8 * k as f32;
        supple::place_mesh(
            &mut mesh,
            scale,
            supple::Quat::identity(),
            Some(supple::Vec3::zeros()),
        );
        let mut desc = SoftBodyDesc::new(mesh, 0.5);
        desc.material.model = model;
        commands.spawn((
            Name::new(file),
            Transform::from_xyz(x, 0.8 + 0.3 * k as f32, 0.0),
            SuppleSoftBody { desc },
        ));
    }
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::new(Vec3::Y, Vec2::splat(10.0)))),
        MeshMaterial3d(materials.add(Color::srgb(0.45, 0.5, 0.42))),
        SuppleCollider::new(ColliderShape::Plane).with_friction(0.6),
    ));
    commands.spawn((
        DirectionalLight {
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(3.0, 6.0, 4.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        Camera3d::default(),
        Transform::from_xyz(0.0, 2.0, 4.0).looking_at(Vec3::new(0.0, 0.4, 0.0), Vec3::Y),
    ));
}

/// Soft bodies the plugin has given a mesh and that have no material yet.
type Unpainted = (
    With<SuppleSoftBody>,
    With<Mesh3d>,
    Without<MeshMaterial3d<StandardMaterial>>,
);

/// Gives each soft body a material once the plugin has given it a mesh.
fn color_bodies(
    mut commands: Commands,
    bodies: Query<Entity, Unpainted>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    for (k, entity) in bodies.iter().enumerate() {
        let hue = 40.0 + 70.0 * k as f32;
        commands
            .entity(entity)
            .insert(MeshMaterial3d(materials.add(Color::hsl(hue, 0.6, 0.55))));
    }
}

/// Left button down on a body: its vertex nearest the cursor's ray is pinned to a grab point,
/// which then follows the cursor at the same depth; button up lets it go.
fn drag(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Query<&Window, With<PrimaryWindow>>,
    camera: Query<(&Camera, &GlobalTransform)>,
    sim: Res<SuppleWorld>,
    bodies: Query<Entity, With<SuppleBody>>,
    mut grabs: Query<(Entity, &Grab, &mut Transform)>,
) {
    let (Ok(window), Ok((camera, eye))) = (window.single(), camera.single()) else {
        return;
    };
    let Some(ray) = window
        .cursor_position()
        .and_then(|c| camera.viewport_to_world(eye, c).ok())
    else {
        return;
    };
    if buttons.just_released(MouseButton::Left) {
        for (grab, held, _) in &grabs {
            commands.entity(held.body).remove::<SupplePin>();
            commands.entity(grab).despawn();
        }
        return;
    }
    if let Ok((_, held, mut at)) = grabs.single_mut() {
        at.translation = ray.get_point(held.depth);
        return;
    }
    if !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    // The vertex nearest the ray, within 5 cm of it.
    let world = sim.world();
    let mut best = None;
    for entity in &bodies {
        let Some(handle) = sim.body(entity) else {
            continue;
        };
        for (k, p) in world.positions(handle).iter().enumerate() {
            let p = Vec3::new(p.x, p.y, p.z);
            let depth = (p - ray.origin).dot(*ray.direction);
            let off = (ray.get_point(depth) - p).length();
            if off < 0.05 && best.is_none_or(|(_, _, d, _)| depth < d) {
                best = Some((entity, k, depth, p));
            }
        }
    }
    if let Some((body, vertex, depth, p)) = best {
        let grab = commands
            .spawn((Grab { depth, body }, Transform::from_translation(p)))
            .id();
        commands.entity(body).insert(SupplePin::new(grab, [vertex]));
    }
}

/// Prints what the plugin could not do.
fn report_errors(mut errors: MessageReader<SuppleError>) {
    for e in errors.read() {
        eprintln!("supple: {e}");
    }
}
