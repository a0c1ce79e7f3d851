//! A soft body from an OBJ file, pushed across the ground by a kinematic box that the program
//! moves every frame.
//!
//! Run: `cargo run --release --example soft_body --no-default-features`

use std::path::Path;
use supple::{
    Collider, Quat, Shape, SoftBodyDesc, SoftMaterial, SolverParams, TriMesh, Vec3, World,
    fit_scale, place_mesh,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = World::new(SolverParams::default())?;
    // Load and clean the mesh, scale it to 0.4 m and put it on the ground.
    let mut mesh =
        TriMesh::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/rounded-box.obj"))?;
    let scale = fit_scale(&mesh, 0.4);
    place_mesh(
        &mut mesh,
        scale,
        Quat::identity(),
        Some(Vec3::new(0.0, 0.25, 0.0)),
    );
    let jelly = world.add_soft_body(&SoftBodyDesc {
        name: "jelly".into(),
        material: SoftMaterial {
            resolution: 6,
            ..SoftMaterial::default()
        },
        ..SoftBodyDesc::new(mesh, 1.0)
    })?;
    world.add_collider(Collider::new(Shape::Plane {
        point: Vec3::zeros(),
        normal: Vec3::y(),
    }))?;
    let pusher = world.add_collider(Collider::new(Shape::Box {
        center: Vec3::new(-0.6, 0.2, 0.0),
        half_extents: Vec3::new(0.05, 0.2, 0.4),
        rotation: Quat::identity(),
    }))?;
    // Drive the box to x = 0.6 m over two seconds, one frame's displacement at a time.
    let frames = 120;
    for frame in 1..=frames {
        let target = -0.6 + 1.2 * frame as f32 / frames as f32;
        let now = world.collider(pusher).shape.center().x;
        world.move_collider(pusher, Vec3::new(target - now, 0.0, 0.0), Quat::identity())?;
        world.step()?;
        if frame % 30 == 0 {
            let x = world.positions(jelly);
            let center = x.iter().sum::<Vec3>() / x.len() as f32;
            println!(
                "frame {frame:3}: box at x = {:.2} m, jelly centre at ({:.2}, {:.2}) m",
                world.collider(pusher).shape.center().x,
                center.x,
                center.y
            );
        }
    }
    Ok(())
}
