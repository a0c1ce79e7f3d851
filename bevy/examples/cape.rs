//! A cape on a character: a capsule moved with the keyboard (W/S or the arrows to walk, A/D to
//! turn), its cape pinned to its shoulders and colliding with its body.
//!
//! `cargo run --release -p bevy_supple --example cape`

use bevy::prelude::*;
use bevy_supple::prelude::*;

/// The cape's quads across and down.
const CELLS: u32 = 24;

/// The walking character.
#[derive(Component)]
struct Character;

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, SupplePlugin))
        .insert_resource(SuppleSettings {
            params: SolverParams {
                substeps: 10,
                ..default()
            },
            threads: None,
        })
        .add_systems(Startup, setup)
        .add_systems(Update, (walk, report_errors))
        .run();
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let (radius, half_length) = (0.25, 0.5);
    let character = commands
        .spawn((
            Character,
            Mesh3d(meshes.add(Capsule3d::new(radius, 2.0 * half_length))),
            MeshMaterial3d(materials.add(Color::srgb(0.35, 0.4, 0.5))),
            Transform::from_xyz(0.0, radius + half_length, 0.0),
            SuppleCollider::new(ColliderShape::Capsule {
                radius,
                half_length,
            })
            .with_friction(0.2),
        ))
        .id();
    // A 0.7 × 1.0 m cape held out level behind the shoulders (+z is behind the character):
    // Bevy's plane turned half round, so that its row at z = +0.5 (the last) is the one at the
    // shoulders. It falls onto the character's back.
    let cape = Plane3d::default()
        .mesh()
        .size(0.7, 1.0)
        .subdivisions(CELLS - 1)
        .build();
    let n = CELLS as usize + 1;
    let top = (n - 1) * n..n * n;
    commands.spawn((
        Mesh3d(meshes.add(cape)),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(0.7, 0.1, 0.12),
            double_sided: true,
            cull_mode: None,
            perceptual_roughness: 0.9,
            ..default()
        })),
        Transform::from_xyz(0.0, 1.2, radius + 0.04 + 0.5)
            .with_rotation(Quat::from_rotation_y(std::f32::consts::PI)),
        SuppleCloth::from_mesh(0.3),
        SupplePin::new(character, top),
    ));
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::new(Vec3::Y, Vec2::splat(20.0)))),
        MeshMaterial3d(materials.add(Color::srgb(0.45, 0.5, 0.42))),
        SuppleCollider::new(ColliderShape::Plane),
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
        Transform::from_xyz(2.5, 2.0, 4.0).looking_at(Vec3::new(0.0, 0.9, 0.0), Vec3::Y),
    ));
}

/// W/S or up/down walk the character along where it faces; A/D or left/right turn it.
fn walk(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    mut character: Query<&mut Transform, With<Character>>,
) {
    let Ok(mut body) = character.single_mut() else {
        return;
    };
    let pressed = |a, b| keys.pressed(a) || keys.pressed(b);
    let dt = time.delta_secs();
    let mut turn = 0.0;
    if pressed(KeyCode::KeyA, KeyCode::ArrowLeft) {
        turn += 2.0;
    }
    if pressed(KeyCode::KeyD, KeyCode::ArrowRight) {
        turn -= 2.0;
    }
    body.rotate_y(turn * dt);
    let ahead = body.rotation * Vec3::NEG_Z;
    let mut speed = 0.0;
    if pressed(KeyCode::KeyW, KeyCode::ArrowUp) {
        speed += 2.0;
    }
    if pressed(KeyCode::KeyS, KeyCode::ArrowDown) {
        speed -= 2.0;
    }
    body.translation += ahead * speed * dt;
}

/// Prints what the plugin could not do.
fn report_errors(mut errors: MessageReader<SuppleError>) {
    for e in errors.read() {
        eprintln!("supple: {e}");
    }
}
