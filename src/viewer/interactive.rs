//! The interactive window: real-time stepping, keyboard controls, particle grabbing and the
//! on-screen statistics.

use super::TEXT_SIZE_PX;
use super::pacing::{FramePacer, MovingAverage};
use super::picking::{grab, pick_particle, ray_plane};
use super::scene_view::{BACKGROUND, SceneView, framing_camera, scene_bounds};
use crate::constraints::{AttachmentSet, Stiffness};
use crate::math::Vec3;
use crate::world::World;
use kiss3d::prelude::{
    Action, Camera3d, Color, Font, Key, MouseButton, OrbitCamera3d, Vec2, Vec3 as GVec3, Window,
    WindowEvent,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Colour of the overlay text.
pub const TEXT: Color = Color::new(0.06, 0.07, 0.10, 1.0);
/// Colour of warnings and errors in the overlay.
const ALERT: Color = Color::new(0.75, 0.05, 0.05, 1.0);
/// Colour of the grab spring.
const GRAB: Color = Color::new(1.0, 0.9, 0.1, 1.0);
/// The mouse spring: XPBD compliance 1e-3 m/N (1000 N/m), no damping.
const GRAB_STIFFNESS: Stiffness = Stiffness::Xpbd {
    compliance: 1e-3,
    damping: 0.0,
};
/// How far from the cursor a particle can be picked, pixels.
const PICK_RADIUS_PX: f32 = 12.0;
/// Most simulation frames run for one rendered frame.
const MAX_FRAMES_PER_RENDER: u32 = 3;
/// Wall time after which no further frame is simulated before the next render, so that the
/// window stays responsive when a frame costs more than it simulates.
const STEP_BUDGET: Duration = Duration::from_millis(50);
/// Bounds of the live solver settings.
const MAX_ITERATIONS: u32 = 200;
const MAX_SUBSTEPS: u32 = 200;
const KEY_HELP: &str = "space pause   . or n step   r reset   w wireframe   p particles   [ ] iterations   - = substeps   enter reframe   esc quit";
const MOUSE_HELP: &str = "left-drag on a body: grab a particle   left-drag elsewhere: orbit   right-drag: pan   scroll: zoom";

/// A particle held by the mouse.
struct Grab {
    /// Index of the attachment constraint holding it.
    constraint: usize,
    /// The plane it moves in: through the particle, facing the camera.
    plane_point: Vec3,
    plane_normal: Vec3,
    /// The camera's rotate button, given back on release.
    rotate_button: Option<MouseButton>,
}

/// State of the window.
struct Viewer {
    window: Window,
    title: String,
    /// The world as loaded, for reset (with the grab material added).
    initial: World,
    world: World,
    view: SceneView,
    camera: OrbitCamera3d,
    pacer: FramePacer,
    paused: bool,
    wireframe: bool,
    particles: bool,
    /// Why the simulation stopped, if it did.
    error: Option<String>,
    grab: Option<Grab>,
    grab_material: u16,
    /// Last cursor position, pixels from the top left.
    cursor: Option<Vec2>,
    /// Milliseconds per simulated frame and rendered frames per second.
    step_ms: MovingAverage,
    fps: MovingAverage,
    font: Arc<Font>,
}

/// Runs the window until it is closed.
pub async fn run(mut window: Window, mut world: World, title: &str) {
    window.set_background_color(BACKGROUND);
    window.rebind_close_key(Some(Key::Escape));
    let grab_material = world.constraints.attachment.materials.add(GRAB_STIFFNESS);
    let view = SceneView::new(&world);
    let mut camera = framing_camera(scene_bounds(&world));
    camera.rebind_reset_key(None);
    let mut viewer = Viewer {
        window,
        title: title.to_string(),
        pacer: FramePacer::new(world.params.dt as f64, MAX_FRAMES_PER_RENDER),
        initial: world.clone(),
        world,
        view,
        camera,
        paused: false,
        wireframe: false,
        particles: false,
        error: None,
        grab: None,
        grab_material,
        cursor: None,
        step_ms: MovingAverage::default(),
        fps: MovingAverage::default(),
        font: Font::default(),
    };
    viewer.run().await;
}

impl Viewer {
    async fn run(&mut self) {
        let mut last = Instant::now();
        while self
            .window
            .render_3d(&mut self.view.root, &mut self.camera)
            .await
        {
            let now = Instant::now();
            let elapsed = (now - last).as_secs_f64();
            last = now;
            if elapsed > 0.0 {
                self.fps.add(1.0 / elapsed, elapsed);
            }
            self.handle_events();
            self.simulate(elapsed);
            self.view.sync(&self.world);
            self.view
                .draw_lines(&mut self.window, &self.world, self.particles);
            self.draw_grab();
            self.draw_overlay();
        }
    }

    fn handle_events(&mut self) {
        let mut events = self.window.events();
        for mut event in events.iter() {
            event.inhibited = self.handle(event.value);
        }
    }

    /// Reacts to one event; true when the camera must not see it.
    fn handle(&mut self, event: WindowEvent) -> bool {
        match event {
            WindowEvent::Key(key, Action::Press, _) => {
                self.key(key);
                false
            }
            WindowEvent::CursorPos(x, y, _) => {
                let cursor = Vec2::new(x as f32, y as f32);
                self.cursor = Some(cursor);
                self.drag(cursor)
            }
            WindowEvent::MouseButton(MouseButton::Button1, Action::Press, _) => {
                self.cursor.is_some_and(|cursor| self.start_grab(cursor))
            }
            WindowEvent::MouseButton(MouseButton::Button1, Action::Release, _) => {
                self.release_grab();
                false
            }
            _ => false,
        }
    }

    fn key(&mut self, key: Key) {
        let params = &mut self.world.params;
        match key {
            Key::Space => {
                self.paused = !self.paused;
                self.pacer.reset();
            }
            Key::Period | Key::N => {
                self.paused = true;
                if self.error.is_none() {
                    self.step();
                }
            }
            Key::R => {
                self.release_grab();
                self.world = self.initial.clone();
                self.error = None;
                self.pacer.reset();
            }
            Key::W => {
                self.wireframe = !self.wireframe;
                self.view.set_wireframe(self.wireframe);
            }
            Key::P => {
                self.particles = !self.particles;
                self.view.set_particles(self.particles);
            }
            Key::LBracket => params.iterations = params.iterations.saturating_sub(1).max(1),
            Key::RBracket => params.iterations = (params.iterations + 1).min(MAX_ITERATIONS),
            Key::Minus => params.substeps = params.substeps.saturating_sub(1).max(1),
            Key::Equals => params.substeps = (params.substeps + 1).min(MAX_SUBSTEPS),
            Key::Return => {
                let rotate_button = self.camera.rotate_button();
                self.camera = framing_camera(scene_bounds(&self.world));
                self.camera.rebind_reset_key(None);
                self.camera.rebind_rotate_button(rotate_button);
            }
            _ => {}
        }
    }

    /// Runs the frames that real time asks for, within the step budget, unless paused or
    /// stopped by an error.
    fn simulate(&mut self, elapsed: f64) {
        if self.paused || self.error.is_some() {
            self.pacer.reset();
            return;
        }
        let start = Instant::now();
        let mut ran = 0;
        for _ in 0..self.pacer.advance(elapsed) {
            ran += 1;
            if !self.step() || start.elapsed() > STEP_BUDGET {
                break;
            }
        }
        self.pacer.ran(ran);
    }

    /// Simulates one frame; false when the simulation failed (the error is shown).
    fn step(&mut self) -> bool {
        let start = Instant::now();
        let result = self.world.step();
        let ms = start.elapsed().as_secs_f64() * 1e3;
        self.step_ms.add(ms, self.world.params.dt as f64);
        match result {
            Ok(()) => true,
            Err(e) => {
                self.error = Some(e.to_string());
                false
            }
        }
    }

    /// The camera ray through the cursor at `cursor` pixels: origin and unit direction.
    fn ray(&self, cursor: Vec2) -> (Vec3, Vec3) {
        let (origin, dir) = self.camera.unproject(cursor, self.window.size().as_vec2());
        (origin.into(), dir.into())
    }

    /// Grabs the particle under the cursor, if any; true when one was grabbed.
    fn start_grab(&mut self, cursor: Vec2) -> bool {
        let (origin, dir) = self.ray(cursor);
        let view_height = 2.0 * self.camera.dist() * (self.camera.fov() / 2.0).tan();
        let radius = PICK_RADIUS_PX * view_height / self.window.height().max(1) as f32;
        let Some(particle) = pick_particle(origin, dir, &self.world.particles.x, radius) else {
            return false;
        };
        let point = self.world.particles.x[particle];
        let constraint = grab(&mut self.world, particle, self.grab_material);
        let view_dir: Vec3 = (self.camera.at() - self.camera.eye()).normalize().into();
        self.grab = Some(Grab {
            constraint,
            plane_point: point,
            plane_normal: view_dir,
            rotate_button: self.camera.rotate_button(),
        });
        self.camera.rebind_rotate_button(None);
        true
    }

    /// Moves the grabbed particle's target under the cursor; true while grabbing.
    fn drag(&mut self, cursor: Vec2) -> bool {
        let Some(grab) = &self.grab else {
            return false;
        };
        let (origin, dir) = self.ray(cursor);
        if let Some(target) = ray_plane(origin, dir, grab.plane_point, grab.plane_normal) {
            self.world.constraints.attachment.target[grab.constraint] = target;
        }
        true
    }

    fn release_grab(&mut self) {
        if let Some(grab) = self.grab.take() {
            remove_attachment(&mut self.world.constraints.attachment, grab.constraint);
            self.camera.rebind_rotate_button(grab.rotate_button);
        }
    }

    /// A line from the grabbed particle to the point it is pulled to.
    fn draw_grab(&mut self) {
        if let Some(grab) = &self.grab {
            let attachments = &self.world.constraints.attachment;
            let particle = attachments.ids[grab.constraint] as usize;
            let target: GVec3 = attachments.target[grab.constraint].into();
            let x: GVec3 = self.world.particles.x[particle].into();
            self.window.draw_line(x, target, GRAB, 2.0, false);
            self.window.draw_point(target, GRAB, 8.0);
        }
    }

    /// Scene name, sizes, settings, timings and key help.
    fn draw_overlay(&mut self) {
        let w = &self.world;
        let cs = &w.constraints;
        let constraints = cs.stretch.len()
            + cs.bend_distance.len()
            + cs.dihedral.len()
            + cs.isometric.len()
            + cs.attachment.ids.len();
        let status = match (&self.error, self.paused) {
            (Some(e), _) => Some(format!("STOPPED: {e} (r resets)")),
            (None, true) => Some("PAUSED".to_string()),
            (None, false) if self.pacer.is_behind() => Some(format!(
                "slower than real time: {:.1}% speed",
                self.pacer.speed() * 100.0
            )),
            (None, false) => None,
        };
        let lines = [
            (self.title.clone(), TEXT),
            (
                format!(
                    "frame {} ({:.2} s)   {} particles   {} constraints",
                    w.frame,
                    w.frame as f32 * w.params.dt,
                    w.particles.len(),
                    constraints
                ),
                TEXT,
            ),
            (
                format!(
                    "{} substeps x {} iterations   {}   {:.2} ms/step   {:.1} fps",
                    w.params.substeps,
                    w.params.iterations,
                    w.params.method.name(),
                    self.step_ms.get(),
                    self.fps.get()
                ),
                TEXT,
            ),
        ];
        let line_height = TEXT_SIZE_PX * 1.2;
        let mut y = TEXT_SIZE_PX / 2.0;
        for (text, color) in lines.iter().chain(status.map(|s| (s, ALERT)).iter()) {
            self.text(text, Vec2::new(TEXT_SIZE_PX / 2.0, y), *color);
            y += line_height;
        }
        let bottom = self.window.height() as f32 - TEXT_SIZE_PX / 2.0;
        self.text(
            MOUSE_HELP,
            Vec2::new(TEXT_SIZE_PX / 2.0, bottom - 2.0 * line_height),
            TEXT,
        );
        self.text(
            KEY_HELP,
            Vec2::new(TEXT_SIZE_PX / 2.0, bottom - line_height),
            TEXT,
        );
    }

    fn text(&mut self, text: &str, position: Vec2, color: Color) {
        self.window
            .draw_text(text, position, TEXT_SIZE_PX, &self.font, color);
    }
}

/// Removes attachment `index`, keeping the others in order.
fn remove_attachment(set: &mut AttachmentSet, index: usize) {
    set.ids.remove(index);
    set.target.remove(index);
    set.lambda.remove(index);
    set.mat.remove(index);
}
