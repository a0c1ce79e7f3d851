//! A whole run as one USD file (`.usda`, Pixar's text format), which Blender, Houdini, Omniverse
//! and usdview read natively.
//!
//! The stage is in metres (`metersPerUnit = 1`) with y up; frame `k` is at time code `k`, and
//! both `timeCodesPerSecond` and `framesPerSecond` are `1 / dt`. Under `/World/Bodies`, a cloth
//! or soft body is a `Mesh` (its rendered surface: triangles once, or at every frame a tearing
//! cloth's mesh changed, and `points`, `normals` and
//! `extent` sampled at every frame, exactly the OBJ export's vertices and normals) and a rope is
//! a linear `BasisCurves` (`points` and `extent` sampled). Under `/World/Colliders`, each
//! collider is a prim placed by `xformOp:translate` and `xformOp:orient`, sampled when it
//! moves: a plane as a square `Mesh` centred under the bodies, a sphere as a `Sphere`, a box as a
//! `Cube` scaled to its half extents, a capsule as a `Capsule` along its own y axis, a mesh as a
//! `Mesh`. Prim names are the body names made valid USD identifiers, and kept unique.
//!
//! Coordinates are written with Rust's shortest round-trip formatting (as in the OBJ export), so
//! a reader parses back the very `f32` values of the simulation.
//!
//! A text layer holds each attribute's samples in one block, whereas a run produces them frame
//! after frame: [`UsdWriter`] streams each frame's blocks to a scratch file, remembering where
//! they are, and [`UsdWriter::finish`] assembles the layer from them into a temporary file that is
//! then renamed over the target. A run that fails (or a writer dropped without `finish`) leaves
//! no file behind.

use super::{ExportError, TempFile, vertex_normals};
use crate::bodies::BodyKind;
use crate::collision::Shape;
use crate::math::{Quat, Real, Vec3};
use crate::world::World;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{BufWriter, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::Path;

/// A ground plane is written as a square of this many times the size of the bodies' bounding box
/// (its diagonal, at least 1 m) on a side, as the viewer draws it.
pub const GROUND_SCALE: Real = 4.0;

/// Where one frame's sample block of one attribute lies in the scratch file.
#[derive(Clone, Copy, Debug)]
struct Chunk {
    offset: u64,
    len: u64,
}

/// A body's prim and its samples so far.
#[derive(Debug)]
struct BodyPrim {
    /// Index of the body in the world.
    body: usize,
    /// Prim name.
    name: String,
    /// `points`, one chunk per frame.
    points: Vec<Chunk>,
    /// `normals` of a mesh, one chunk per frame (empty for a rope).
    normals: Vec<Chunk>,
    /// Bounding box of the points, one per frame.
    extents: Vec<(Vec3, Vec3)>,
    /// `faceVertexIndices` of a mesh at its first frame and at every frame its vertices changed
    /// (a tearing cloth), one chunk each.
    faces: Vec<Chunk>,
    /// The mesh's vertices at its last `faces` chunk.
    vertices: usize,
}

/// Writes the frames of a run to one USD file: [`create`](UsdWriter::create) it before the
/// first frame, call [`write_frame`](UsdWriter::write_frame) after every frame (the initial state
/// included), and [`finish`](UsdWriter::finish) at the end.
#[derive(Debug)]
pub struct UsdWriter {
    /// The USD file.
    target: std::path::PathBuf,
    /// Scene name, written into the layer's `doc`.
    scene: String,
    /// Frame time step, s.
    dt: Real,
    /// Sample blocks, in the order they were produced.
    scratch: BufWriter<TempFile>,
    /// Bytes written to `scratch`.
    scratch_len: u64,
    bodies: Vec<BodyPrim>,
    /// Pose of every collider at every frame: (translation, orientation).
    collider_poses: Vec<Vec<(Vec3, Quat)>>,
    /// Where the square of a ground plane is centred: the bodies' initial centre.
    ground_center: Vec3,
    /// Side of the square of a ground plane, m.
    ground_size: Real,
    /// The frame number of every frame written.
    frames: Vec<u64>,
}

impl UsdWriter {
    /// Starts the USD file of a run of `world` (a scene named `scene`) at `path`; nothing is
    /// written at `path` before [`finish`](UsdWriter::finish).
    pub fn create(path: &Path, world: &World, scene: &str) -> Result<Self, ExportError> {
        let scratch = TempFile::beside(path)?;
        let names = prim_names(world.bodies.iter().map(|b| b.name.as_str()));
        let bodies = names
            .into_iter()
            .enumerate()
            .map(|(body, name)| BodyPrim {
                body,
                name,
                points: Vec::new(),
                normals: Vec::new(),
                extents: Vec::new(),
                faces: Vec::new(),
                vertices: 0,
            })
            .collect();
        let (lo, hi) = bounds(&world.particles.x).unwrap_or_default();
        Ok(UsdWriter {
            target: path.to_path_buf(),
            scene: scene.to_string(),
            dt: world.params.dt,
            scratch: BufWriter::new(scratch),
            scratch_len: 0,
            bodies,
            collider_poses: vec![Vec::new(); world.colliders.len()],
            ground_center: (lo + hi) / 2.0,
            ground_size: GROUND_SCALE * (hi - lo).norm().max(1.0),
            frames: Vec::new(),
        })
    }

    /// Records the current frame of `world` (the world the writer was created for).
    pub fn write_frame(&mut self, world: &World) -> Result<(), ExportError> {
        let frame = world.frame;
        for prim in &mut self.bodies {
            let body = &world.bodies[prim.body];
            let x = body.surface(&world.particles.x);
            prim.extents.push(bounds(&x).unwrap_or_default());
            let block = sample_block(frame, &x);
            prim.points.push(append(
                &mut self.scratch,
                &mut self.scratch_len,
                &self.target,
                &block,
            )?);
            if body.kind != BodyKind::Rope && (prim.faces.is_empty() || x.len() != prim.vertices) {
                let indices = body.triangles.iter().flatten().map(u32::to_string);
                let list = indices.collect::<Vec<_>>().join(", ");
                let block = format!("                {frame}: [{list}],\n");
                prim.faces.push(append(
                    &mut self.scratch,
                    &mut self.scratch_len,
                    &self.target,
                    &block,
                )?);
                prim.vertices = x.len();
            }
            if body.kind != BodyKind::Rope {
                let block = sample_block(frame, &vertex_normals(&x, &body.triangles));
                prim.normals.push(append(
                    &mut self.scratch,
                    &mut self.scratch_len,
                    &self.target,
                    &block,
                )?);
            }
        }
        for (poses, collider) in self.collider_poses.iter_mut().zip(&world.colliders) {
            poses.push(pose(&collider.shape, self.ground_center));
        }
        self.frames.push(frame);
        Ok(())
    }

    /// Assembles the layer and renames it over the target file.
    pub fn finish(self, world: &World) -> Result<(), ExportError> {
        let UsdWriter {
            target,
            scene,
            dt,
            scratch,
            bodies,
            collider_poses,
            ground_size,
            frames,
            ..
        } = self;
        let mut scratch = scratch
            .into_inner()
            .map_err(|e| super::export_error(&target, e.into_error()))?;
        let mut out = BufWriter::new(TempFile::beside(&target)?);
        let io = |e: std::io::Error| super::export_error(&target, e);
        let rate = time_codes_per_second(dt);
        let (start, end) = (
            frames.first().copied().unwrap_or(0),
            frames.last().copied().unwrap_or(0),
        );
        let mut head = String::new();
        let _ = write!(
            head,
            "#usda 1.0\n(\n    defaultPrim = \"World\"\n    doc = \"Supple: scene {}, {} frames of {dt} s\"\n    \
             metersPerUnit = 1\n    upAxis = \"Y\"\n    timeCodesPerSecond = {rate}\n    framesPerSecond = {rate}\n    \
             startTimeCode = {start}\n    endTimeCode = {end}\n)\n\ndef Xform \"World\"\n{{\n    def Xform \"Bodies\"\n    {{\n",
            quoted(&scene),
            frames.len()
        );
        out.write_all(head.as_bytes()).map_err(io)?;
        for (i, prim) in bodies.iter().enumerate() {
            if i > 0 {
                out.write_all(b"\n").map_err(io)?;
            }
            let body = &world.bodies[prim.body];
            let mut s = String::new();
            match body.kind {
                BodyKind::Cloth | BodyKind::Soft => {
                    let _ = writeln!(s, "        def Mesh \"{}\"\n        {{", prim.name);
                    let _ = writeln!(
                        s,
                        "            uniform bool doubleSided = {}",
                        u8::from(body.kind == BodyKind::Cloth)
                    );
                    // A torn cloth's faces are sampled where they changed (below).
                    let torn = prim.faces.len() > 1;
                    write_faces(&mut s, 12, &body.triangles, !torn);
                    s.push_str("            uniform token subdivisionScheme = \"none\"\n");
                    s.push_str(
                        "            normal3f[] normals (\n                interpolation = \"vertex\"\n            )\n",
                    );
                }
                BodyKind::Rope => {
                    let n = body.particles.len();
                    let width = 2.0 * world.particles.radius[body.particles.start];
                    let _ = writeln!(
                        s,
                        "        def BasisCurves \"{}\"\n        {{\n            uniform token type = \"linear\"\n            \
                         int[] curveVertexCounts = [{n}]\n            float[] widths = [{width}] (\n                \
                         interpolation = \"constant\"\n            )",
                        prim.name
                    );
                }
            }
            s.push_str("            float3[] extent.timeSamples = {\n");
            for (frame, (lo, hi)) in frames.iter().zip(&prim.extents) {
                let _ = writeln!(
                    s,
                    "                {frame}: [{}, {}],",
                    tuple(lo),
                    tuple(hi)
                );
            }
            s.push_str("            }\n");
            out.write_all(s.as_bytes()).map_err(io)?;
            let faces: &[Chunk] = if prim.faces.len() > 1 {
                &prim.faces
            } else {
                &[]
            };
            for (kind, chunks) in [
                ("int[] faceVertexIndices", faces),
                ("normal3f[] normals", &prim.normals),
                ("point3f[] points", &prim.points),
            ] {
                if chunks.is_empty() {
                    continue;
                }
                writeln!(out, "            {kind}.timeSamples = {{").map_err(io)?;
                for chunk in chunks {
                    scratch.seek(SeekFrom::Start(chunk.offset)).map_err(io)?;
                    let copied =
                        std::io::copy(&mut (&mut scratch).take(chunk.len), &mut out).map_err(io)?;
                    if copied != chunk.len {
                        return Err(io(std::io::ErrorKind::UnexpectedEof.into()));
                    }
                }
                out.write_all(b"            }\n").map_err(io)?;
            }
            out.write_all(b"        }\n").map_err(io)?;
        }
        out.write_all(b"    }\n\n    def Xform \"Colliders\"\n    {\n")
            .map_err(io)?;
        for (j, (collider, poses)) in world.colliders.iter().zip(&collider_poses).enumerate() {
            if j > 0 {
                out.write_all(b"\n").map_err(io)?;
            }
            let s = collider_prim(j, &collider.shape, poses, &frames, ground_size);
            out.write_all(s.as_bytes()).map_err(io)?;
        }
        out.write_all(b"    }\n}\n").map_err(io)?;
        let out = out
            .into_inner()
            .map_err(|e| super::export_error(&target, e.into_error()))?;
        out.persist()
    }
}

/// Appends `block` to the scratch file and returns where it went.
fn append(
    scratch: &mut BufWriter<TempFile>,
    len: &mut u64,
    target: &Path,
    block: &str,
) -> Result<Chunk, ExportError> {
    scratch
        .write_all(block.as_bytes())
        .map_err(|e| super::export_error(target, e))?;
    let chunk = Chunk {
        offset: *len,
        len: block.len() as u64,
    };
    *len += chunk.len;
    Ok(chunk)
}

/// One line of a `timeSamples` block: `frame: [(x, y, z), ...],`.
fn sample_block(frame: u64, v: &[Vec3]) -> String {
    let mut s = format!("                {frame}: [");
    for (i, p) in v.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&tuple(p));
    }
    s.push_str("],\n");
    s
}

/// `(x, y, z)`, each in Rust's shortest round-trip form.
fn tuple(v: &Vec3) -> String {
    format!("({}, {}, {})", v.x, v.y, v.z)
}

/// `text` as a USD string literal (in single quotes, with `\\` and `'` escaped, on one line).
fn quoted(text: &str) -> String {
    let escaped = text
        .replace('\\', "\\\\")
        .replace('\'', "\\'")
        .replace(['\n', '\r'], " ");
    format!("'{escaped}'")
}

/// `(w, x, y, z)`: USD's order of a quaternion's components.
fn quat(q: &Quat) -> String {
    format!("({}, {}, {}, {})", q.w, q.i, q.j, q.k)
}

/// Writes `faceVertexCounts` of `triangles`, and their `faceVertexIndices` when `indices` is
/// set, indented by `indent`.
fn write_faces(s: &mut String, indent: usize, triangles: &[[u32; 3]], indices: bool) {
    let pad = " ".repeat(indent);
    let counts = vec!["3"; triangles.len()].join(", ");
    let _ = writeln!(s, "{pad}int[] faceVertexCounts = [{counts}]");
    if !indices {
        return;
    }
    let indices: Vec<String> = triangles.iter().flatten().map(u32::to_string).collect();
    let _ = writeln!(s, "{pad}int[] faceVertexIndices = [{}]", indices.join(", "));
}

/// The smallest box holding `x`, if any.
fn bounds(x: &[Vec3]) -> Option<(Vec3, Vec3)> {
    let first = *x.first()?;
    Some(
        x.iter()
            .fold((first, first), |(lo, hi), p| (lo.inf(p), hi.sup(p))),
    )
}

/// `1 / dt` in time codes (frames) per second; the nearest whole number when `dt` is `1 / n` to
/// the precision of an `f32`, as for `dt = 0.016666667`.
fn time_codes_per_second(dt: Real) -> f64 {
    let rate = 1.0 / f64::from(dt);
    let whole = rate.round();
    if (rate - whole).abs() <= whole * f64::from(Real::EPSILON) {
        whole
    } else {
        rate
    }
}

/// The rotation taking the y axis to `axis` (any rotation of a half turn when `axis` is −y;
/// none when `axis` is zero).
fn y_to(axis: Vec3) -> Quat {
    Quat::rotation_between(&Vec3::y(), &axis).unwrap_or_else(|| {
        if axis.y < 0.0 {
            Quat::from_axis_angle(&Vec3::x_axis(), std::f32::consts::PI)
        } else {
            Quat::identity()
        }
    })
}

/// Where a collider's prim goes: the translation and (unit) orientation of its own frame. A plane's
/// frame sits at the point of the plane nearest to `ground_center`, with y along the normal; a
/// capsule's frame has y along its axis.
fn pose(shape: &Shape, ground_center: Vec3) -> (Vec3, Quat) {
    let (translate, orient) = match shape {
        Shape::Plane { point, normal } => (
            ground_center - normal * normal.dot(&(ground_center - point)),
            y_to(*normal),
        ),
        Shape::Sphere { center, .. } => (*center, Quat::identity()),
        Shape::Box {
            center, rotation, ..
        } => (*center, *rotation),
        Shape::Capsule { a, b, .. } => ((a + b) / 2.0, y_to(b - a)),
        Shape::Mesh {
            position, rotation, ..
        } => (*position, *rotation),
    };
    // A moving collider's orientation, composed from many small turns, drifts from unit length;
    // readers want a pure rotation.
    (translate, Quat::new_normalize(orient.into_inner()))
}

/// The prim of collider `j` with its pose at every frame: default values when it never moves,
/// time samples otherwise.
fn collider_prim(
    j: usize,
    shape: &Shape,
    poses: &[(Vec3, Quat)],
    frames: &[u64],
    ground_size: Real,
) -> String {
    let mut s = String::new();
    let pad = "            ";
    let (kind, name) = match shape {
        Shape::Plane { .. } => ("Mesh", "plane"),
        Shape::Sphere { .. } => ("Sphere", "sphere"),
        Shape::Box { .. } => ("Cube", "box"),
        Shape::Capsule { .. } => ("Capsule", "capsule"),
        Shape::Mesh { .. } => ("Mesh", "mesh"),
    };
    let _ = writeln!(s, "        def {kind} \"{name}_{j}\"\n        {{");
    let extent =
        |lo: Vec3, hi: Vec3| format!("{pad}float3[] extent = [{}, {}]\n", tuple(&lo), tuple(&hi));
    match shape {
        Shape::Plane { .. } => {
            let h = ground_size / 2.0;
            let corners = [
                Vec3::new(-h, 0.0, -h),
                Vec3::new(-h, 0.0, h),
                Vec3::new(h, 0.0, h),
                Vec3::new(h, 0.0, -h),
            ];
            s.push_str(&extent(corners[0], corners[2]));
            let _ = writeln!(
                s,
                "{pad}int[] faceVertexCounts = [4]\n{pad}int[] faceVertexIndices = [0, 1, 2, 3]"
            );
            let points: Vec<String> = corners.iter().map(tuple).collect();
            let _ = writeln!(s, "{pad}point3f[] points = [{}]", points.join(", "));
            let _ = writeln!(s, "{pad}uniform token subdivisionScheme = \"none\"");
        }
        Shape::Sphere { radius, .. } => {
            s.push_str(&extent(Vec3::repeat(-radius), Vec3::repeat(*radius)));
            let _ = writeln!(s, "{pad}double radius = {radius}");
        }
        Shape::Box { .. } => {
            s.push_str(&extent(Vec3::repeat(-1.0), Vec3::repeat(1.0)));
            let _ = writeln!(s, "{pad}double size = 2");
        }
        Shape::Capsule { a, b, radius } => {
            let height = (b - a).norm();
            let half = Vec3::new(*radius, height / 2.0 + radius, *radius);
            s.push_str(&extent(-half, half));
            let _ = writeln!(
                s,
                "{pad}uniform token axis = \"Y\"\n{pad}double height = {height}\n{pad}double radius = {radius}"
            );
        }
        Shape::Mesh { mesh, .. } => {
            let (lo, hi) = mesh.bounds();
            s.push_str(&extent(lo, hi));
            write_faces(&mut s, pad.len(), &mesh.triangles, true);
            let points: Vec<String> = mesh.vertices.iter().map(tuple).collect();
            let _ = writeln!(s, "{pad}point3f[] points = [{}]", points.join(", "));
            let _ = writeln!(s, "{pad}uniform token subdivisionScheme = \"none\"");
        }
    }
    let still = poses.windows(2).all(|w| w[0] == w[1]);
    let (translate, orient) = poses
        .first()
        .copied()
        .unwrap_or((Vec3::zeros(), Quat::identity()));
    if still {
        let _ = writeln!(s, "{pad}float3 xformOp:translate = {}", tuple(&translate));
        let _ = writeln!(s, "{pad}quatf xformOp:orient = {}", quat(&orient));
    } else {
        let _ = writeln!(s, "{pad}float3 xformOp:translate.timeSamples = {{");
        for (frame, (t, _)) in frames.iter().zip(poses) {
            let _ = writeln!(s, "{pad}    {frame}: {},", tuple(t));
        }
        let _ = writeln!(s, "{pad}}}\n{pad}quatf xformOp:orient.timeSamples = {{");
        for (frame, (_, q)) in frames.iter().zip(poses) {
            let _ = writeln!(s, "{pad}    {frame}: {},", quat(q));
        }
        let _ = writeln!(s, "{pad}}}");
    }
    let mut order = vec!["\"xformOp:translate\"", "\"xformOp:orient\""];
    if let Shape::Box { half_extents, .. } = shape {
        let _ = writeln!(s, "{pad}float3 xformOp:scale = {}", tuple(half_extents));
        order.push("\"xformOp:scale\"");
    }
    let _ = writeln!(
        s,
        "{pad}uniform token[] xformOpOrder = [{}]",
        order.join(", ")
    );
    s.push_str("        }\n");
    s
}

/// Valid, distinct USD prim names for `names`, in order: every character other than an ASCII
/// letter, digit or `_` becomes `_`, a leading digit (or an empty name) gets a `_` in front, and a
/// name already taken gets `_2`, `_3`, ... appended.
pub fn prim_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken = HashSet::new();
    names
        .into_iter()
        .map(|name| {
            let mut base: String = name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            if !base.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                base.insert(0, '_');
            }
            let mut unique = base.clone();
            let mut n = 2;
            while !taken.insert(unique.clone()) {
                unique = format!("{base}_{n}");
                n += 1;
            }
            unique
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bodies::cloth::{ClothDesc, Orientation};
    use crate::bodies::rope::RopeDesc;
    use crate::collision::{Collider, Motion};
    use crate::params::SolverParams;

    /// A cloth named like a file, a rope, a ground and a box that rises.
    fn world() -> World {
        let mut world = World::new(SolverParams::default()).unwrap();
        let mut cloth = ClothDesc::grid(
            [3, 2],
            [0.4, 0.2],
            Vec3::new(0.0, 1.0, 0.0),
            Orientation::Horizontal,
            0.1,
        )
        .unwrap();
        cloth.name = "sheet-1.v2".into();
        world.add_cloth(&cloth).unwrap();
        let mut rope = RopeDesc::new(Vec3::new(0.0, 2.0, 0.0), Vec3::new(1.0, 2.0, 0.0), 4, 0.1);
        rope.name = "sheet_1_v2".into();
        world.add_rope(&rope).unwrap();
        let ground = Shape::Plane {
            point: Vec3::zeros(),
            normal: Vec3::y(),
        };
        world.add_collider(Collider::new(ground)).unwrap();
        let mut lift = Collider::new(Shape::Box {
            center: Vec3::new(3.0, 0.5, 0.0),
            half_extents: Vec3::new(0.1, 0.2, 0.3),
            rotation: Quat::identity(),
        });
        lift.motion = Motion {
            velocity: Vec3::y(),
            spin: Vec3::zeros(),
        };
        world.add_collider(lift).unwrap();
        world
    }

    /// Writes frames 0 to `frames` of `world()` to `path`; returns the final world.
    fn write(path: &Path, frames: u64) -> World {
        let mut world = world();
        let mut usd = UsdWriter::create(path, &world, "test").unwrap();
        usd.write_frame(&world).unwrap();
        for _ in 0..frames {
            world.step().unwrap();
            usd.write_frame(&world).unwrap();
        }
        usd.finish(&world).unwrap();
        world
    }

    /// The `(x, y, z)` tuples of one line of text.
    fn parse_tuples(line: &str) -> Vec<Vec3> {
        line.split('(')
            .skip(1)
            .map(|t| {
                let c: Vec<Real> = t
                    .split(')')
                    .next()
                    .unwrap()
                    .split(", ")
                    .map(|v| v.parse().unwrap())
                    .collect();
                Vec3::new(c[0], c[1], c[2])
            })
            .collect()
    }

    #[test]
    fn names_become_distinct_usd_identifiers() {
        let names = prim_names(["sheet", "sheet", "a-b.c", "a_b_c", "3d", "", "é"]);
        assert_eq!(
            names,
            ["sheet", "sheet_2", "a_b_c", "a_b_c_2", "_3d", "_", "__2"]
        );
    }

    #[test]
    fn a_sixtieth_of_a_second_in_f32_is_sixty_time_codes_per_second() {
        assert_eq!(time_codes_per_second(1.0 / 60.0), 60.0);
        assert_eq!(time_codes_per_second(0.016666667), 60.0);
        assert_eq!(time_codes_per_second(0.01), 100.0);
        let rate = time_codes_per_second(0.003);
        assert!(
            (rate - 1.0 / 0.003).abs() < 1e-4 && rate.fract() != 0.0,
            "{rate}"
        );
    }

    #[test]
    fn the_layer_holds_every_frame_of_every_body_and_the_last_points_read_back_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.usda");
        let world = write(&path, 3);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("#usda 1.0\n"));
        for line in [
            "metersPerUnit = 1",
            "upAxis = \"Y\"",
            "timeCodesPerSecond = 60",
            "framesPerSecond = 60",
            "startTimeCode = 0",
            "endTimeCode = 3",
            "def Mesh \"sheet_1_v2\"",
            "def BasisCurves \"sheet_1_v2_2\"",
            "int[] curveVertexCounts = [5]",
            "def Mesh \"plane_0\"",
            "def Cube \"box_1\"",
        ] {
            assert_eq!(text.matches(line).count(), 1, "{line}");
        }
        // Points of both bodies, normals of the cloth, the box's translation.
        for (block, count) in [
            ("point3f[] points.timeSamples", 2),
            ("normal3f[] normals.timeSamples", 1),
            ("float3[] extent.timeSamples", 2),
            ("float3 xformOp:translate.timeSamples", 1),
            ("quatf xformOp:orient.timeSamples", 1),
        ] {
            assert_eq!(text.matches(block).count(), count, "{block}");
        }
        assert_eq!(text.matches("\n                3: [(").count(), 2 * 2 + 1);
        for (body, name) in world.bodies.iter().zip(["sheet_1_v2", "sheet_1_v2_2"]) {
            let prim = text.split(&format!("\"{name}\"\n")).nth(1).unwrap();
            let points = prim.split("point3f[] points.timeSamples").nth(1).unwrap();
            let last = points
                .lines()
                .find(|l| l.trim_start().starts_with("3: "))
                .unwrap();
            let read: Vec<[u32; 3]> = parse_tuples(last)
                .iter()
                .map(|p| p.map(f32::to_bits).into())
                .collect();
            let want: Vec<[u32; 3]> = body
                .surface(&world.particles.x)
                .iter()
                .map(|p| p.map(f32::to_bits).into())
                .collect();
            assert_eq!(read, want, "{name}");
        }
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["run.usda"], "temporary files left");
    }

    #[test]
    fn a_writer_dropped_before_finish_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.usda");
        let world = world();
        let mut usd = UsdWriter::create(&path, &world, "test").unwrap();
        usd.write_frame(&world).unwrap();
        drop(usd);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_static_collider_has_no_time_samples() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.usda");
        write(&path, 2);
        let text = std::fs::read_to_string(&path).unwrap();
        let plane = text
            .split("def Mesh \"plane_0\"")
            .nth(1)
            .unwrap()
            .split("def Cube")
            .next()
            .unwrap();
        assert!(
            plane.contains("float3 xformOp:translate = (0.4, 0, 0)"),
            "{plane}"
        );
        assert!(
            plane.contains("quatf xformOp:orient = (1, 0, 0, 0)"),
            "{plane}"
        );
        assert!(!plane.contains("timeSamples"), "{plane}");
    }
}
