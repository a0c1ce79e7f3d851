//! The kiss3d scene of a world: cloth and soft-body meshes, collider shapes (kinematic ones
//! following their motion), the ground grid and ropes, and a camera framed on them. The
//! simulation stays on nalgebra; positions become glam vectors here.

use crate::bodies::BodyKind;
use crate::collision::{Motion, Shape};
use crate::math::{Quat, Real, Vec3};
use crate::world::World;
use kiss3d::prelude::{
    Color, GpuMesh3d, Light, OrbitCamera3d, Quat as GQuat, Rc, RefCell, SceneNode3d, Vec3 as GVec3,
    Window,
};

/// Background of the view: a pale blue-grey sky.
pub const BACKGROUND: Color = Color::new(0.62, 0.69, 0.77, 1.0);
/// Front side of cloth (the side its triangles wind counter-clockwise towards).
const CLOTH_FRONT: Color = Color::new(0.90, 0.42, 0.18, 1.0);
/// Back side of cloth.
const CLOTH_BACK: Color = Color::new(0.20, 0.50, 0.72, 1.0);
/// Outside of a soft body's surface, and inside (seen through holes of an open mesh).
const SOFT_FRONT: Color = Color::new(0.36, 0.66, 0.32, 1.0);
const SOFT_BACK: Color = Color::new(0.55, 0.35, 0.55, 1.0);
/// Wireframe edges and particles drawn over cloth.
const CLOTH_EDGES: Color = Color::new(0.15, 0.12, 0.10, 1.0);
const PARTICLES: Color = Color::new(0.95, 0.95, 0.20, 1.0);
const ROPE: Color = Color::new(0.55, 0.30, 0.12, 1.0);
const COLLIDER: Color = Color::new(0.62, 0.64, 0.68, 1.0);
const GROUND: Color = Color::new(0.80, 0.80, 0.78, 1.0);
const GRID: Color = Color::new(0.45, 0.45, 0.45, 1.0);
/// Rope width and particle size, pixels.
const ROPE_WIDTH_PX: f32 = 3.0;
const PARTICLE_SIZE_PX: f32 = 4.0;
/// Grid lines on each side of a ground plane's center.
const GRID_HALF_LINES: i32 = 10;

/// The nodes drawing one cloth or soft body: the same triangles twice, wound both ways, each
/// culled from behind, so that the two sides get their own colour and their own lighting.
struct SurfaceNodes {
    /// Index of the body in the world.
    body: usize,
    /// Its vertices when the nodes were made: a tearing cloth gains vertices as it tears.
    vertices: usize,
    front: SceneNode3d,
    back: SceneNode3d,
}

impl SurfaceNodes {
    /// The nodes of body number `body` of `world`, added to `root`.
    fn new(root: &mut SceneNode3d, world: &World, body: usize) -> Self {
        let b = &world.bodies[body];
        let coords = positions(&b.surface(&world.particles.x));
        let back_faces = b.triangles.iter().map(|&[a, b, c]| [a, c, b]).collect();
        let (front, back) = match b.kind {
            BodyKind::Soft => (SOFT_FRONT, SOFT_BACK),
            BodyKind::Cloth | BodyKind::Rope => (CLOTH_FRONT, CLOTH_BACK),
        };
        SurfaceNodes {
            body,
            vertices: coords.len(),
            front: add_dynamic_mesh(root, coords.clone(), b.triangles.clone()).set_color(front),
            back: add_dynamic_mesh(root, coords, back_faces).set_color(back),
        }
    }

    /// Shows the front's edges and vertices as `wireframe` and `particles` say.
    fn show(&mut self, wireframe: bool, particles: bool) {
        self.front
            .set_lines_width(if wireframe { 1.0 } else { 0.0 }, false);
        let size = if particles { PARTICLE_SIZE_PX } else { 0.0 };
        self.front.set_points_size(size, false);
    }
}

/// Everything drawn for a world.
pub struct SceneView {
    /// Root of the scene graph, passed to `render_3d`.
    pub root: SceneNode3d,
    surfaces: Vec<SurfaceNodes>,
    /// The nodes of kinematic colliders, with the collider's index.
    moving: Vec<(usize, SceneNode3d)>,
    /// Grid line segments over the ground planes, world coordinates.
    grid: Vec<(GVec3, GVec3)>,
    /// Whether triangle edges and surface vertices are shown.
    wireframe: bool,
    particles: bool,
}

impl SceneView {
    /// Builds the scene of `world`. The window or offscreen surface must exist already.
    pub fn new(world: &World) -> Self {
        let mut root = SceneNode3d::empty();
        let (lo, hi) = scene_bounds(world);
        let center = (lo + hi) / 2.0;
        let size = (hi - lo).norm().max(1.0);
        let ground_size = 4.0 * size;
        // A sun for shadows, and a point light up front whose falloff shades flat cloth.
        root.add_light(Light::directional(
            GVec3::new(-0.35, -1.0, -0.5).normalize(),
        ));
        root.add_light(
            Light::point(4.0 * size)
                .with_intensity(1.0)
                .with_casts_shadows(false),
        )
        .set_position(GVec3::from(center) + GVec3::new(-0.6, 1.2, 1.0) * size);
        let mut grid = Vec::new();
        let mut moving = Vec::new();
        for (i, collider) in world.colliders.iter().enumerate() {
            let node = add_collider(&mut root, &collider.shape, center, ground_size, &mut grid);
            if collider.motion != Motion::default() {
                moving.push((i, node));
            }
        }
        let surfaces = world
            .bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| b.kind != BodyKind::Rope)
            .map(|(index, _)| SurfaceNodes::new(&mut root, world, index))
            .collect();
        SceneView {
            root,
            surfaces,
            moving,
            grid,
            wireframe: false,
            particles: false,
        }
    }

    /// Moves the cloth and soft-body meshes to the world's current positions (skinning soft
    /// bodies) and recomputes their normals (making a torn cloth's meshes again), and the
    /// kinematic colliders to their current pose (a moving plane stays where it began).
    pub fn sync(&mut self, world: &World) {
        for (i, node) in &mut self.moving {
            if let Some((position, rotation)) = pose(&world.colliders[*i].shape) {
                node.set_position(position);
                node.set_rotation(rotation);
            }
        }
        for surface in &mut self.surfaces {
            let xs = world.bodies[surface.body].surface(&world.particles.x);
            if xs.len() != surface.vertices {
                surface.front.remove();
                surface.back.remove();
                *surface = SurfaceNodes::new(&mut self.root, world, surface.body);
                surface.show(self.wireframe, self.particles);
            }
            for node in [&mut surface.front, &mut surface.back] {
                node.modify_vertices(&mut |vs| {
                    for (v, x) in vs.iter_mut().zip(&xs) {
                        *v = (*x).into();
                    }
                });
                node.recompute_normals();
            }
        }
    }

    /// Shows or hides the edges of every cloth and soft-body triangle.
    pub fn set_wireframe(&mut self, on: bool) {
        self.wireframe = on;
        self.show();
    }

    /// Shows or hides the vertices of cloth and soft-body surfaces as dots (rope particles are
    /// drawn by `draw_lines`).
    pub fn set_particles(&mut self, on: bool) {
        self.particles = on;
        self.show();
    }

    /// Applies the wireframe and particle settings to every surface.
    fn show(&mut self) {
        for surface in &mut self.surfaces {
            surface.show(self.wireframe, self.particles);
        }
    }

    /// Queues this frame's immediate-mode lines: the ground grid and the ropes (with their
    /// particles when `particles` is set).
    pub fn draw_lines(&self, window: &mut Window, world: &World, particles: bool) {
        for &(a, b) in &self.grid {
            window.draw_line(a, b, GRID, 1.0, false);
        }
        for body in world.bodies.iter().filter(|b| b.kind == BodyKind::Rope) {
            let xs = positions(&world.particles.x[body.particles.clone()]);
            for pair in xs.windows(2) {
                window.draw_line(pair[0], pair[1], ROPE, ROPE_WIDTH_PX, false);
            }
            if particles {
                for &x in &xs {
                    window.draw_point(x, PARTICLES, PARTICLE_SIZE_PX);
                }
            }
        }
    }
}

/// A cloth mesh whose vertices change every frame.
fn add_dynamic_mesh(
    root: &mut SceneNode3d,
    coords: Vec<GVec3>,
    faces: Vec<[u32; 3]>,
) -> SceneNode3d {
    let mesh = GpuMesh3d::new(coords, faces, None, None, true);
    root.add_mesh(Rc::new(RefCell::new(mesh)), GVec3::ONE)
        .enable_backface_culling(true)
        .set_roughness(0.85)
        .set_lines_color(Some(CLOTH_EDGES))
        .set_points_color(Some(PARTICLES))
}

/// Adds the node of a collider and returns it; a plane becomes a square of side `ground_size` m
/// around the point nearest to `center`, with its grid lines appended to `grid`.
fn add_collider(
    root: &mut SceneNode3d,
    shape: &Shape,
    center: Vec3,
    ground_size: Real,
    grid: &mut Vec<(GVec3, GVec3)>,
) -> SceneNode3d {
    let mut node = match shape {
        Shape::Plane { point, normal } => {
            let origin = center - normal * normal.dot(&(center - point));
            let n: GVec3 = (*normal).into();
            grid.extend(grid_lines(origin.into(), n, ground_size));
            return root
                .add_quad(ground_size, ground_size, 1, 1)
                .set_color(GROUND)
                .set_rotation(GQuat::from_rotation_arc(GVec3::Z, n))
                .set_position(origin.into());
        }
        Shape::Sphere { radius, .. } => root.add_sphere_with_subdiv(*radius, 64, 32),
        Shape::Box { half_extents, .. } => {
            let size = half_extents * 2.0;
            root.add_cube(size.x, size.y, size.z)
        }
        Shape::Capsule { a, b, radius } => {
            root.add_capsule_with_subdiv(*radius, (b - a).norm(), 48, 24)
        }
        Shape::Mesh { mesh, .. } => {
            let gpu = GpuMesh3d::new(
                positions(&mesh.vertices),
                mesh.triangles.clone(),
                None,
                None,
                false,
            );
            root.add_mesh(Rc::new(RefCell::new(gpu)), GVec3::ONE)
        }
    };
    if let Some((position, rotation)) = pose(shape) {
        node.set_rotation(rotation);
        node.set_position(position);
    }
    node.set_color(COLLIDER)
}

/// Where the node of a finite collider goes: its center and the rotation of its own frame (a
/// capsule's node has its axis along y). None for a plane.
fn pose(shape: &Shape) -> Option<(GVec3, GQuat)> {
    match shape {
        Shape::Plane { .. } => None,
        Shape::Sphere { center, .. } => Some(((*center).into(), GQuat::IDENTITY)),
        Shape::Box {
            center, rotation, ..
        } => Some(((*center).into(), (*rotation).into())),
        Shape::Capsule { a, b, .. } => {
            let axis: GVec3 = (b - a).into();
            Some((
                ((a + b) / 2.0).into(),
                GQuat::from_rotation_arc(GVec3::Y, axis.normalize_or(GVec3::Y)),
            ))
        }
        Shape::Mesh {
            position, rotation, ..
        } => Some(((*position).into(), (*rotation).into())),
    }
}

/// Segments of a square grid of side `size` m centered on `origin` in the plane of unit normal
/// `n`, lifted a little off the plane so that they are not hidden by it.
fn grid_lines(origin: GVec3, n: GVec3, size: f32) -> Vec<(GVec3, GVec3)> {
    let u = n.any_orthonormal_vector();
    let v = n.cross(u);
    let lifted = origin + n * (size * 1e-4);
    let step = size / (2 * GRID_HALF_LINES) as f32;
    let half = size / 2.0;
    (-GRID_HALF_LINES..=GRID_HALF_LINES)
        .flat_map(|k| {
            let offset = k as f32 * step;
            [
                (
                    lifted + u * offset - v * half,
                    lifted + u * offset + v * half,
                ),
                (
                    lifted + v * offset - u * half,
                    lifted + v * offset + u * half,
                ),
            ]
        })
        .collect()
}

/// Nalgebra positions as glam vectors.
fn positions(xs: &[Vec3]) -> Vec<GVec3> {
    xs.iter().map(|&x| x.into()).collect()
}

/// Axis-aligned bounds of the particles and finite colliders, m, grown to include the point of
/// each plane nearest to their center; a 2 m cube around the origin when there is nothing.
pub fn scene_bounds(world: &World) -> (Vec3, Vec3) {
    let mut boxes: Vec<(Vec3, Vec3)> = world.particles.x.iter().map(|&x| (x, x)).collect();
    for collider in &world.colliders {
        match &collider.shape {
            Shape::Plane { .. } => {}
            Shape::Sphere { center, radius } => {
                boxes.push((center.add_scalar(-radius), center.add_scalar(*radius)));
            }
            Shape::Box {
                center,
                half_extents,
                rotation,
            } => {
                boxes.push(rotated_box(*center, *half_extents, rotation));
            }
            Shape::Capsule { a, b, radius } => {
                boxes.push((a.inf(b).add_scalar(-radius), a.sup(b).add_scalar(*radius)));
            }
            Shape::Mesh {
                mesh,
                position,
                rotation,
            } => {
                let (lo, hi) = mesh.bounds();
                let middle = position + rotation * ((lo + hi) / 2.0);
                boxes.push(rotated_box(middle, (hi - lo) / 2.0, rotation));
            }
        }
    }
    let Some((lo, hi)) = boxes
        .into_iter()
        .reduce(|(lo, hi), (l, h)| (lo.inf(&l), hi.sup(&h)))
    else {
        return (Vec3::repeat(-1.0), Vec3::repeat(1.0));
    };
    let center = (lo + hi) / 2.0;
    world
        .colliders
        .iter()
        .filter_map(|c| match &c.shape {
            Shape::Plane { point, normal } => Some(center - normal * normal.dot(&(center - point))),
            _ => None,
        })
        .fold((lo, hi), |(lo, hi), p| (lo.inf(&p), hi.sup(&p)))
}

/// Axis-aligned bounds of a box of `half_extents` m rotated by `rotation` about `center`.
fn rotated_box(center: Vec3, half_extents: Vec3, rotation: &Quat) -> (Vec3, Vec3) {
    let reach = rotation.to_rotation_matrix().matrix().abs() * half_extents;
    (center - reach, center + reach)
}

/// An orbit camera looking at the middle of `bounds` from the front, above and to the right,
/// far enough back for the whole box to fit in its 45° field of view.
pub fn framing_camera(bounds: (Vec3, Vec3)) -> OrbitCamera3d {
    let (lo, hi) = bounds;
    let at: GVec3 = ((lo + hi) / 2.0).into();
    let radius = ((hi - lo).norm() / 2.0).max(0.1);
    let fov = std::f32::consts::FRAC_PI_4;
    let dist = radius / (fov / 2.0).sin();
    let eye = at + GVec3::new(0.55, 0.45, 1.0).normalize() * dist;
    OrbitCamera3d::new_with_frustum(fov, dist * 0.01, dist * 100.0, eye, at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RopeDesc;
    use crate::collision::Collider;
    use crate::params::SolverParams;
    use kiss3d::prelude::Camera3d;

    #[test]
    fn bounds_cover_particles_colliders_and_the_ground_below() {
        let mut world = World::new(SolverParams::default()).unwrap();
        let rope = RopeDesc::new(Vec3::new(0.0, 2.0, 0.0), Vec3::new(1.0, 3.0, 0.5), 1, 1.0);
        world.add_rope(&rope).unwrap();
        let shapes = [
            Shape::Sphere {
                center: Vec3::new(-1.0, 1.0, 0.0),
                radius: 0.5,
            },
            Shape::Box {
                center: Vec3::new(3.0, 1.0, 0.0),
                half_extents: Vec3::new(1.0, 0.1, 0.1),
                rotation: Quat::from_axis_angle(&Vec3::z_axis(), std::f32::consts::FRAC_PI_2),
            },
            Shape::Plane {
                point: Vec3::new(0.0, -0.5, 0.0),
                normal: Vec3::y(),
            },
        ];
        for shape in shapes {
            world.add_collider(Collider::new(shape)).unwrap();
        }
        let (lo, hi) = scene_bounds(&world);
        assert!((lo - Vec3::new(-1.5, -0.5, -0.5)).norm() < 1e-5, "{lo}");
        assert!((hi - Vec3::new(3.1, 3.0, 0.5)).norm() < 1e-5, "{hi}");
    }

    #[test]
    fn empty_world_has_unit_bounds_and_the_camera_sees_the_whole_box() {
        let bounds = scene_bounds(&World::default());
        assert_eq!(bounds, (Vec3::repeat(-1.0), Vec3::repeat(1.0)));
        let camera = framing_camera(bounds);
        let distance = (camera.eye() - camera.at()).length();
        assert!(distance > 3.0_f32.sqrt() / (std::f32::consts::PI / 8.0).sin() - 1e-4);
    }
}
