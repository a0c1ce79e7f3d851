//! A cloth built in code: a 1 m square pinned at two corners falls onto a sphere, stepped in a
//! loop that prints its lowest point.
//!
//! Run: `cargo run --release --example cloth --no-default-features`

use supple::{
    BendKind, ClothDesc, Collider, Orientation, Shape, SolverParams, Stiffness, Vec3, World,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = World::new(SolverParams {
        substeps: 10,
        iterations: 4,
        ..SolverParams::default()
    })?;
    let mut sheet = ClothDesc::grid(
        [32, 32],
        [1.0, 1.0],
        Vec3::new(0.0, 1.5, 0.0),
        Orientation::Horizontal,
        0.3,
    )?;
    sheet.name = "sheet".into();
    sheet.pin = vec![
        ClothDesc::grid_index(32, 0, 0),
        ClothDesc::grid_index(32, 31, 0),
    ];
    sheet.bend = Some((
        Stiffness::Xpbd {
            compliance: 10.0,
            damping: 0.0,
        },
        BendKind::Dihedral,
    ));
    let cloth = world.add_cloth(&sheet)?;
    world.add_collider(Collider::new(Shape::Sphere {
        center: Vec3::new(0.0, 0.8, 0.3),
        radius: 0.3,
    }))?;
    for frame in 1..=120 {
        world.step()?;
        if frame % 20 == 0 {
            let lowest = world
                .positions(cloth)
                .iter()
                .map(|p| p.y)
                .fold(f32::MAX, f32::min);
            println!("frame {frame:3}: lowest point of the cloth at y = {lowest:.3} m");
        }
    }
    Ok(())
}
