//! Any Supple scene file in Bevy: its bodies and colliders spawned as entities, simulated and
//! drawn. Space pauses and resumes; `.` steps one frame while paused.
//!
//! `cargo run --release -p bevy_supple --example scene -- scenes/cape.toml` (from the
//! repository's root; the default is `scenes/default.toml`)

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy_supple::prelude::*;
use std::path::PathBuf;

fn main() {
    let file = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/default.toml")
        });
    let file = match file.canonicalize() {
        Ok(file) => file,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            std::process::exit(1);
        }
    };
    // The scene's folder is the asset folder, so that its meshes are found beside it.
    let folder = file
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    App::new()
        .add_plugins((
            DefaultPlugins.set(AssetPlugin {
                file_path: folder,
                ..default()
            }),
            SupplePlugin,
        ))
        .insert_resource(SceneFile(name))
        .add_systems(Startup, setup)
        .add_systems(Update, (pause, report_errors))
        .run();
}

/// The scene's file name in the asset folder.
#[derive(Resource)]
struct SceneFile(String);

fn setup(mut commands: Commands, assets: Res<AssetServer>, file: Res<SceneFile>) {
    commands.spawn(SuppleSceneRoot(assets.load(file.0.clone())));
    commands.spawn((
        DirectionalLight {
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(3.0, 6.0, 4.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        Camera3d::default(),
        Transform::from_xyz(2.0, 2.0, 3.0).looking_at(Vec3::new(0.0, 0.7, 0.0), Vec3::Y),
    ));
}

/// Space pauses and resumes; `.` steps one frame while paused.
fn pause(keys: Res<ButtonInput<KeyCode>>, mut control: ResMut<SuppleControl>) {
    if keys.just_pressed(KeyCode::Space) {
        control.paused = !control.paused;
    }
    if keys.just_pressed(KeyCode::Period) {
        control.steps += 1;
    }
}

/// Prints what the plugin could not do (a scene file's error names its line and key).
fn report_errors(mut errors: MessageReader<SuppleError>) {
    for e in errors.read() {
        eprintln!("supple: {e}");
    }
}
