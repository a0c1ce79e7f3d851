//! Reading positions every frame to draw them elsewhere: a hanging flag is copied each frame
//! into a vertex buffer (what a renderer would upload), and the last frame is drawn as text,
//! seen from the front.
//!
//! Run: `cargo run --release --example draw_elsewhere --no-default-features`

use supple::{ClothDesc, Orientation, SolverParams, Vec3, World};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = World::new(SolverParams {
        wind: Vec3::new(0.0, 0.0, 3.0),
        ..SolverParams::default()
    })?;
    let (nx, ny) = (24, 16);
    let mut flag = ClothDesc::grid(
        [nx, ny],
        [1.2, 0.8],
        Vec3::new(0.6, 1.6, 0.0),
        Orientation::Vertical,
        0.2,
    )?;
    flag.pin = (0..ny).map(|j| ClothDesc::grid_index(nx, 0, j)).collect();
    flag.drag = 0.6;
    let handle = world.add_cloth(&flag)?;
    // The renderer's side: a flat vertex buffer and the triangles, which do not change.
    let triangles = world.body(handle).triangles.clone();
    let mut vertex_buffer: Vec<[f32; 3]> = Vec::new();
    for _ in 0..90 {
        world.step()?;
        vertex_buffer.clear();
        vertex_buffer.extend(world.positions(handle).iter().map(|p| [p.x, p.y, p.z]));
    }
    println!(
        "{} vertices, {} triangles in the buffer after 90 frames",
        vertex_buffer.len(),
        triangles.len()
    );
    // Draw the buffer as characters: x across, y down, '#' for a vertex.
    let (cols, rows) = (60, 24);
    let mut canvas = vec![vec![' '; cols]; rows];
    for [x, y, _] in &vertex_buffer {
        let c = (x / 1.5 * cols as f32) as isize;
        let r = ((2.0 - y) / 1.5 * rows as f32) as isize;
        if (0..cols as isize).contains(&c) && (0..rows as isize).contains(&r) {
            canvas[r as usize][c as usize] = '#';
        }
    }
    for row in canvas {
        println!("|{}", row.into_iter().collect::<String>());
    }
    Ok(())
}
