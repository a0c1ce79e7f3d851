//! Mouse picking: which particle a ray from the camera points at, and where a dragged particle
//! should go.

use crate::math::{Real, Vec3};
use crate::world::World;

/// Index of the particle nearest to the ray `origin + t·dir` (`dir` a unit vector, `t > 0`),
/// among those within `radius` m of it; ties go to the particle nearer the origin.
pub fn pick_particle(origin: Vec3, dir: Vec3, positions: &[Vec3], radius: Real) -> Option<usize> {
    positions
        .iter()
        .enumerate()
        .filter_map(|(i, x)| {
            let t = (x - origin).dot(&dir);
            let miss = (x - origin - dir * t).norm();
            (t > 0.0 && miss <= radius).then_some((i, miss, t))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.2.total_cmp(&b.2)))
        .map(|(i, _, _)| i)
}

/// Where the ray `origin + t·dir` (`t ≥ 0`) meets the plane through `point` with normal
/// `normal`; `None` when the ray is parallel to the plane or points away from it.
pub fn ray_plane(origin: Vec3, dir: Vec3, point: Vec3, normal: Vec3) -> Option<Vec3> {
    let denom = dir.dot(&normal);
    if denom.abs() <= Real::EPSILON {
        return None;
    }
    let t = (point - origin).dot(&normal) / denom;
    (t >= 0.0).then(|| origin + dir * t)
}

/// Grabs particle `particle` of `world` where it is: an attachment of material `material` that
/// pulls it towards its target (first its own position; the drag moves it); returns the
/// attachment's index. A tearing cloth tears when the drag pulls it past its limit.
pub fn grab(world: &mut World, particle: usize, material: u16) -> usize {
    let attachments = &mut world.constraints.attachment;
    attachments.push(particle as u32, world.particles.x[particle], material);
    attachments.ids.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points() -> Vec<Vec3> {
        vec![
            Vec3::new(0.0, 0.0, -5.0),
            Vec3::new(0.05, 0.0, -3.0),
            Vec3::new(0.02, 0.0, -4.0),
            Vec3::new(0.0, 0.0, 2.0),
            Vec3::new(1.0, 1.0, -1.0),
        ]
    }

    #[test]
    fn picks_the_particle_nearest_to_the_ray() {
        let hit = pick_particle(Vec3::zeros(), -Vec3::z(), &points()[1..], 0.1);
        assert_eq!(hit, Some(1), "0.02 m off the ray beats 0.05 m");
        assert_eq!(
            pick_particle(Vec3::zeros(), -Vec3::z(), &points(), 0.1),
            Some(0)
        );
    }

    #[test]
    fn ignores_particles_behind_the_origin_or_outside_the_radius() {
        let behind = [Vec3::new(0.0, 0.0, 2.0)];
        assert_eq!(pick_particle(Vec3::zeros(), -Vec3::z(), &behind, 0.1), None);
        assert_eq!(
            pick_particle(Vec3::zeros(), -Vec3::z(), &points(), 0.0),
            Some(0)
        );
        let far = [Vec3::new(1.0, 1.0, -1.0)];
        assert_eq!(pick_particle(Vec3::zeros(), -Vec3::z(), &far, 0.5), None);
    }

    #[test]
    fn equal_misses_go_to_the_nearer_particle() {
        let stacked = [Vec3::new(0.0, 0.1, -3.0), Vec3::new(0.0, 0.1, -1.0)];
        let hit = pick_particle(Vec3::zeros(), -Vec3::z(), &stacked, 0.2);
        assert_eq!(hit, Some(1));
    }

    #[test]
    fn ray_meets_the_plane_facing_it() {
        let origin = Vec3::new(0.0, 0.0, 5.0);
        let dir = Vec3::new(0.6, 0.0, -0.8);
        let hit = ray_plane(origin, dir, Vec3::new(0.0, 0.0, 1.0), Vec3::z()).unwrap();
        assert!((hit - Vec3::new(3.0, 0.0, 1.0)).norm() < 1e-5);
        assert_eq!(ray_plane(origin, Vec3::x(), Vec3::zeros(), Vec3::z()), None);
        assert_eq!(ray_plane(origin, Vec3::z(), Vec3::zeros(), Vec3::z()), None);
    }

    #[test]
    fn dragging_a_particle_of_a_tearing_cloth_tears_it_free() {
        use crate::bodies::tear::Tear;
        use crate::{ClothDesc, Orientation, SolverParams, Stiffness};
        let mut world = World::new(SolverParams::default()).unwrap();
        let [nx, nz] = [15, 15];
        let grid = ClothDesc::grid(
            [nx, nz],
            [0.7, 0.7],
            Vec3::new(0.0, 1.0, 0.0),
            Orientation::Vertical,
            0.2,
        )
        .unwrap();
        let desc = ClothDesc {
            pin: (0..nx).map(|i| ClothDesc::grid_index(nx, i, 0)).collect(),
            tear: Some(Tear { strain: 0.3 }),
            ..grid
        };
        world.add_cloth(&desc).unwrap();
        // The viewer's mouse spring, on the middle particle of the bottom row, pulled down and
        // towards the camera by 2 cm a frame.
        let material = world.constraints.attachment.materials.add(Stiffness::Xpbd {
            compliance: 1e-3,
            damping: 0.0,
        });
        let particle = ClothDesc::grid_index(nx, nx / 2, nz - 1);
        let c = grab(&mut world, particle, material);
        let start = world.particles.x[particle];
        for frame in 1..=60 {
            let target = start + Vec3::new(0.0, -1.0, 1.0).normalize() * (0.02 * frame as Real);
            world.constraints.attachment.target[c] = target;
            world.step().unwrap();
        }
        assert!(world.torn_edges() > 0, "the drag tore the cloth");
        // Torn free, the particle follows the mouse: 1.2 m from where it was, within 5 cm of
        // the target, far past what the cloth, 0.7 m tall, could reach at 30% strain.
        let gap = (world.particles.x[particle] - world.constraints.attachment.target[c]).norm();
        assert!(gap < 0.05, "{gap} m behind the target");
    }
}
